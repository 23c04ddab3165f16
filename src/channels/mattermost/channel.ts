import { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { PlatformChannel } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, MATTERMOST_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { platformJson } from "../platform-json.ts";
import type { ChannelSetup, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";
import { runMattermostSocket } from "./socket.ts";
import { MattermostErrorSchema, MeSchema, PostedDataSchema, PostSchema, type Post, UploadedFilesSchema } from "./wire.ts";

/** A `posted` event -> the inbound shape (undefined for system posts: joins, header changes...). */
export function normalizeMattermost(channel: string, post: Post, data: z.infer<typeof PostedDataSchema>, me: { id: string; username: string } | null): InboundMessage | undefined {
  if (post.type !== "" && !post.type.startsWith("custom_")) return undefined;
  const attachments: InboundAttachment[] = [];
  for (const file of post.metadata?.files ?? []) {
    const kind = file.mime_type?.startsWith("image/") ? "image" : file.mime_type?.startsWith("audio/") ? "audio" : null;
    if (kind && attachments.length < CHANNEL_MAX_ATTACHMENTS) attachments.push({ kind, ref: file.id, ...(file.size === undefined ? {} : { bytes: file.size }) });
  }
  const dm = data.channel_type === "D";
  let mentions: unknown = [];
  try {
    mentions = data.mentions ? JSON.parse(data.mentions) : [];
  } catch {
    mentions = [];
  }
  const mentioned = me !== null && ((Array.isArray(mentions) && mentions.includes(me.id)) || post.message.includes(`@${me.username}`));
  const fromBot = post.props?.from_bot === true || post.props?.from_bot === "true";
  return {
    id: post.id,
    channel,
    chatId: post.channel_id,
    chatKind: dm ? "dm" : post.root_id ? "thread" : "group",
    // outside DMs the bot answers in the post's thread, which is also the conversation's session
    threadId: dm ? post.root_id || null : post.root_id || post.id,
    senderId: post.user_id,
    senderDisplay: (data.sender_name?.replace(/^@/, "") || post.user_id).slice(0, 256),
    senderIsBot: fromBot || (me !== null && post.user_id === me.id),
    text: post.message,
    replyTo: null,
    mentioned,
    timestamp: post.create_at,
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Mattermost with a bot account's token: `posted` events from the WebSocket (authenticated by challenge, reconnected
 * with backoff), replies with POST /api/v4/posts in the post's thread (root_id), typing through the REST typing call.
 */
export class MattermostChannel extends PlatformChannel {
  readonly kind = "mattermost" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: MATTERMOST_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly token: string;
  private readonly base: string;
  private me: { id: string; username: string } | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    this.token = this.requireSecret("token_env", "Mattermost bot token", "MATTERMOST_TOKEN");
    if (!setup.config.api_base_url) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: Mattermost needs the server's URL (api_base_url)`, {
        hint: `set api_base_url = "https://mattermost.example.com" in [channels.${this.name}]`,
      });
    }
    this.base = setup.config.api_base_url.replace(/\/$/, "");
  }

  private api<T>(what: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    return platformJson({
      platform: "mattermost",
      what,
      url: `${this.base}/api/v4/${path}`,
      headers: { authorization: `Bearer ${this.token}` },
      body,
      schema,
      bounds: { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal },
      explain: (status, json) => {
        const error = MattermostErrorSchema.safeParse(json);
        return error.success ? { message: `${error.data.message}${error.data.id ? ` (${error.data.id})` : ""}`, retryable: status === 429 || status >= 500 } : undefined;
      },
    });
  }

  /** https://developers.mattermost.com/api-documentation/#/operations/GetUser (user_id "me"): the token's account. */
  async checkCredentials(): Promise<string> {
    const me = await this.api("users/me", "users/me", MeSchema);
    return `Mattermost ${me.is_bot ? "bot" : "user"} @${me.username} (id ${me.id}) on ${this.base}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.me = await this.retrying("users/me", () => this.api("users/me", "users/me", MeSchema));
    let connected!: () => void;
    const first = new Promise<void>((resolve) => (connected = resolve));
    this.loop = runMattermostSocket({
      url: `${this.base.replace(/^http/, "ws")}/api/v4/websocket`,
      token: this.token,
      onEvent: async (event, data) => {
        if (event !== "posted") return;
        const posted = PostedDataSchema.safeParse(data);
        if (!posted.success) return this.setup.logger.warn("Mattermost: skipped a malformed posted event");
        let post: Post;
        try {
          post = PostSchema.parse(parseJsonBounded(posted.data.post, "post"));
        } catch (error) {
          return this.setup.logger.warn(`Mattermost: skipped a posted event whose post is not one: ${errorMessage(error)}`);
        }
        const message = normalizeMattermost(this.name, post, posted.data, this.me);
        if (message) await onMessage(message);
      },
      logger: this.setup.logger,
      signal: this.stopper.signal,
      onState: (ok, detail) => {
        this.state = { ok, detail: ok ? `@${this.me?.username} ${detail}` : detail };
        if (ok) connected();
      },
    });
    await this.firstConnection(first);
  }

  async send(reply: OutboundReply): Promise<string> {
    const body: Record<string, unknown> = { channel_id: reply.chatId, message: reply.text };
    if (reply.threadId) body.root_id = reply.threadId;
    const post = await this.retrying("create post", () => this.api("create post", "posts", PostSchema, body));
    return post.id;
  }

  /**
   * POST /api/v4/files (multipart `channel_id` and `files`, https://developers.mattermost.com/api-documentation/#/operations/UploadFile)
   * answers the file's info; a post with its id in `file_ids` shows it in the chat (and thread).
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const form = new FormData();
    form.append("channel_id", target.chatId);
    form.append("files", new Blob([attachment.bytes], { type: attachment.mime }), attachment.name);
    const uploaded = await this.api("file upload", "files", UploadedFilesSchema, form);
    const body: Record<string, unknown> = { channel_id: target.chatId, message: "", file_ids: [uploaded.file_infos[0]!.id] };
    if (target.threadId) body.root_id = target.threadId;
    return (await this.api("create post", "posts", PostSchema, body)).id;
  }

  override async typing(chatId: string, threadId: string | null): Promise<void> {
    await this.api("typing", "users/me/typing", z.unknown(), { channel_id: chatId, ...(threadId ? { parent_id: threadId } : {}) });
  }

  /** A file's bytes (GET /api/v4/files/{file_id}) with the bot token. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    if (!/^[a-z0-9]{1,64}$/.test(attachment.ref)) throw new PrxError("CHANNEL_PLATFORM", "mattermost: not a file id");
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const headers = { authorization: `Bearer ${this.token}` };
    const got = await platformDownload("mattermost", "file download", `${this.base}/api/v4/files/${attachment.ref}`, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `mattermost: file download: HTTP ${got.status}`);
    return got.bytes;
  }
}
