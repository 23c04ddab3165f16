import type { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ids.ts";
import { Backoff, sleep } from "../../core/supervise/index.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, MATRIX_MAX_MESSAGE_CHARS, MATRIX_TYPING_TIMEOUT_MS, PLATFORM_BACKOFF } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { AnyObjectAnswerSchema } from "../platform-json.ts";
import { withRetries } from "../send-retries.ts";
import type { PlatformError } from "../platform-error.ts";
import { PlatformChannel } from "../base.ts";
import type { ChannelSetup, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";

/** Message types that reach the turn: text, notices (bots'; marked as such), images and audio. */
const MESSAGE_TYPES = new Set(["m.text", "m.notice", "m.image", "m.audio"]);
import { matrixCall } from "./api.ts";
import { JoinedSchema, MessageContentSchema, RoomEventSchema, SentEventSchema, SyncSchema, UploadedSchema, WhoamiSchema, type Sync } from "./wire.ts";

/**
 * Matrix: `/sync` long polling with the since token persisted once the batch is stored (the first sync only records
 * where to start: old history is not answered), m.room.message sends with transaction ids derived from the reply (a
 * resend after a crash is deduplicated by the homeserver), threads and replies kept, invites auto-joined when the
 * inviter may talk to the assistant.
 */
export class MatrixChannel extends PlatformChannel {
  readonly kind = "matrix" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: MATRIX_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly token: string;
  private readonly base: string;
  private me: string | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    const token = this.secret("token_env");
    if (!token || !setup.config.api_base_url)
      throw new PrxError("CHANNEL_CONFIG", `channel ${setup.name}: Matrix needs an access token (token_env) and the homeserver URL (api_base_url)`, {
        hint: `set token_env = "MATRIX_ACCESS_TOKEN" and api_base_url = "https://matrix.example.org" in [channels.${setup.name}]`,
      });
    this.token = token;
    this.base = setup.config.api_base_url;
  }

  private call<T>(method: string, path: string, body: unknown, schema: z.ZodType<T>, timeoutMs = this.limits.requestTimeoutMs): Promise<T> {
    return matrixCall(this.base, this.token, method, path, body, schema, timeoutMs, this.stopper.signal);
  }

  private whoami() {
    return this.call("GET", "/_matrix/client/v3/account/whoami", undefined, WhoamiSchema);
  }

  /** https://spec.matrix.org/latest/client-server-api/#get_matrixclientv3accountwhoami: whose the access token is. */
  async checkCredentials(): Promise<string> {
    const whoami = await this.whoami();
    return `Matrix user ${whoami.user_id}${whoami.device_id ? ` (device ${whoami.device_id})` : ""} on ${this.base}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    const whoami = await withRetries(() => this.whoami(), this.stopper.signal);
    this.me = whoami.user_id;
    this.state = { ok: true, detail: `${this.me} syncing` };
    this.loop = this.sync(onMessage);
  }

  private async sync(onMessage: OnMessage): Promise<void> {
    const backoff = new Backoff(PLATFORM_BACKOFF);
    const timeoutMs = this.setup.config.poll_timeout_s * 1000;
    while (!this.stopper.signal.aborted) {
      await this.setup.waitForCapacity?.();
      const since = await this.setup.cursor.get();
      const query = new URLSearchParams({ timeout: String(since ? timeoutMs : 0) });
      if (since) query.set("since", since);
      let batch: Sync;
      try {
        batch = await this.call("GET", `/_matrix/client/v3/sync?${query}`, undefined, SyncSchema, timeoutMs + this.limits.longPollSlackMs);
      } catch (error) {
        if (this.stopper.signal.aborted) return;
        const wait = (error as PlatformError).retryAfterMs ?? backoff.next();
        this.state = { ok: false, detail: errorMessage(error) };
        this.setup.logger.warn(`/sync failed, retrying in ${wait} ms: ${errorMessage(error)}`);
        await sleep(wait, this.stopper.signal);
        continue;
      }
      backoff.reset();
      this.state = { ok: true, detail: `${this.me} syncing` };
      await this.invites(batch);
      if (since) for (const message of this.messages(batch)) await onMessage(message);
      await this.setup.cursor.set(batch.next_batch);
    }
  }

  private async invites(batch: Sync): Promise<void> {
    for (const [roomId, room] of Object.entries(batch.rooms?.invite ?? {})) {
      const invite = (room.invite_state?.events ?? [])
        .map((e) => RoomEventSchema.safeParse(e))
        .find((e) => e.success && e.data.type === "m.room.member" && e.data.state_key === this.me && e.data.content.membership === "invite");
      const inviter = invite?.success ? invite.data.sender : null;
      if (!inviter || !(await this.setup.mayInvite?.(inviter))) {
        this.setup.logger.info(`not joining ${roomId}: invited by ${inviter ?? "unknown"}, who is not allowed`);
        continue;
      }
      try {
        await this.call("POST", `/_matrix/client/v3/join/${encodeURIComponent(roomId)}`, {}, JoinedSchema);
        this.setup.logger.info(`joined ${roomId} (invited by ${inviter})`);
      } catch (error) {
        this.setup.logger.warn(`could not join ${roomId}: ${errorMessage(error)}`);
      }
    }
  }

  /** An mxc:// file through the authenticated media download (https://spec.matrix.org/v1.11/client-server-api/#get_matrixclientv1mediadownloadservernamemediaid). */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const mxc = /^mxc:\/\/([^/]+)\/([A-Za-z0-9_-]+)$/.exec(attachment.ref);
    if (!mxc) throw new PrxError("CHANNEL_PLATFORM", "not an mxc:// URI");
    const url = `${this.base.replace(/\/$/, "")}/_matrix/client/v1/media/download/${encodeURIComponent(mxc[1]!)}/${mxc[2]}`;
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const headers = { authorization: `Bearer ${this.token}` };
    const got = await platformDownload("matrix", "media download", url, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `media download: HTTP ${got.status}`);
    return got.bytes;
  }

  private messages(batch: Sync): InboundMessage[] {
    const out: InboundMessage[] = [];
    for (const [roomId, room] of Object.entries(batch.rooms?.join ?? {})) {
      const members = room.summary?.["m.joined_member_count"];
      for (const raw of room.timeline?.events ?? []) {
        const event = RoomEventSchema.safeParse(raw);
        if (!event.success || event.data.type !== "m.room.message" || !event.data.event_id) continue;
        const content = MessageContentSchema.safeParse(event.data.content);
        if (!content.success || !MESSAGE_TYPES.has(content.data.msgtype)) continue;
        const media = content.data.msgtype === "m.image" || content.data.msgtype === "m.audio";
        if (media && !content.data.url?.startsWith("mxc://")) continue;
        const attachments: InboundAttachment[] = media
          ? [
              {
                kind: content.data.msgtype === "m.image" ? "image" : "audio",
                ref: content.data.url!,
                ...(content.data.info?.size === undefined ? {} : { bytes: content.data.info.size }),
                ...(content.data.info?.duration === undefined ? {} : { seconds: content.data.info.duration / 1000 }),
              },
            ]
          : [];
        // a media event's body is its file name, unless a separate filename makes it a caption
        const caption = media ? (content.data.filename !== undefined && content.data.filename !== content.data.body ? content.data.body : "") : content.data.body;
        const relates = content.data["m.relates_to"];
        const thread = relates?.rel_type === "m.thread" ? (relates.event_id ?? null) : null;
        const mentions = content.data["m.mentions"]?.user_ids ?? [];
        out.push({
          id: event.data.event_id,
          channel: this.name,
          chatId: roomId,
          chatKind: thread ? "thread" : members !== undefined && members <= 2 ? "dm" : "group",
          threadId: thread,
          senderId: event.data.sender,
          senderDisplay: event.data.sender,
          // m.notice is what bots send (https://spec.matrix.org/v1.11/client-server-api/#mnotice); our own messages too
          senderIsBot: event.data.sender === this.me || content.data.msgtype === "m.notice",
          text: caption,
          replyTo: relates?.["m.in_reply_to"]?.event_id ?? null,
          mentioned: (this.me !== null && (mentions.includes(this.me) || caption.includes(this.me))),
          timestamp: event.data.origin_server_ts ?? Date.now(),
          ...(attachments.length > 0 ? { attachments } : {}),
        });
      }
    }
    return out;
  }

  /**
   * The bytes to the media repository (POST /_matrix/media/v3/upload, https://spec.matrix.org/v1.11/client-server-api/#post_matrixmediav3upload),
   * then an m.image or m.file event naming the returned mxc:// URI (#mimage, #mfile), in the thread and reply chain.
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const path = `/_matrix/media/v3/upload?filename=${encodeURIComponent(attachment.name)}`;
    const { content_uri } = await matrixCall(this.base, this.token, "POST", path, attachment.bytes, UploadedSchema, this.limits.requestTimeoutMs, this.stopper.signal, attachment.mime);
    const content: Record<string, unknown> = {
      msgtype: attachment.kind === "image" ? "m.image" : "m.file",
      body: attachment.name,
      filename: attachment.name,
      url: content_uri,
      info: { mimetype: attachment.mime, size: attachment.bytes.byteLength },
    };
    return this.sendContent(target, content, content_uri);
  }

  async send(reply: OutboundReply): Promise<string> {
    return this.sendContent(reply, { msgtype: "m.text", body: reply.text }, reply.text);
  }

  /** An m.room.message to the target's room, in its thread and reply chain; `key` makes the transaction id. */
  private async sendContent(reply: ReplyTarget, content: Record<string, unknown>, key: string): Promise<string> {
    if (reply.threadId) {
      content["m.relates_to"] = { rel_type: "m.thread", event_id: reply.threadId, is_falling_back: true, ...(reply.replyTo ? { "m.in_reply_to": { event_id: reply.replyTo } } : {}) };
    } else if (reply.replyTo) content["m.relates_to"] = { "m.in_reply_to": { event_id: reply.replyTo } };
    // the same reply part always has the same transaction id: a resend is deduplicated by the homeserver
    const txn = `prx.${sha256Hex(`${reply.chatId}\n${reply.replyTo}\n${key}`).slice(0, 32)}`;
    const path = `/_matrix/client/v3/rooms/${encodeURIComponent(reply.chatId)}/send/m.room.message/${txn}`;
    const sent = await this.retrying("send", () => this.call("PUT", path, content, SentEventSchema));
    return sent.event_id;
  }

  override async typing(chatId: string): Promise<void> {
    const path = `/_matrix/client/v3/rooms/${encodeURIComponent(chatId)}/typing/${encodeURIComponent(this.me ?? "")}`;
    await this.call("PUT", path, { typing: true, timeout: MATRIX_TYPING_TIMEOUT_MS }, AnyObjectAnswerSchema);
  }
}
