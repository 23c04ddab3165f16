import type { ZodType } from "zod";
import { PrxError } from "../../core/errors.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, SLACK_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { verifySlackSignature } from "../signature.ts";
import { jsonAnswer, PlatformChannel } from "../base.ts";
import { withRetries } from "../send-retries.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundAttachment, OutboundReply, ReplyTarget } from "../types.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { SLACK_DEFAULT_API, slackCall } from "./api.ts";
import { runSlackSocket } from "./socket.ts";
import {
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
  SlackAuthSchema,
  SlackConnectionSchema,
  SlackEventCallbackSchema,
  SlackMessageEventSchema,
  SlackPostedSchema,
  SlackUploadedSchema,
  SlackUploadUrlSchema,
  SlackUrlVerificationSchema,
  type SlackMessageEvent,
} from "./wire.ts";

/** Message subtypes that carry a person's text; every other subtype (edits, joins, bot_message) is skipped. */
const TEXT_SUBTYPES = new Set([undefined, "thread_broadcast", "file_share"]);

/** Shared images and audio files, fetched with the bot token when the turn runs. */
function attachmentsOf(event: SlackMessageEvent): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  for (const file of (event.files ?? []).slice(0, CHANNEL_MAX_ATTACHMENTS)) {
    const kind = file.mimetype?.startsWith("image/") ? "image" : file.mimetype?.startsWith("audio/") ? "audio" : null;
    const ref = file.url_private_download ?? file.url_private;
    if (kind && ref) out.push({ kind, ref, ...(file.size === undefined ? {} : { bytes: file.size }) });
  }
  return out;
}

/** A Slack message event -> the inbound shape (undefined for subtypes without a person's text). */
export function normalizeSlack(channel: string, event: SlackMessageEvent, botUserId: string | null): InboundMessage | undefined {
  const attachments = attachmentsOf(event);
  if (attachments.length > 0 && event.text === undefined) event = { ...event, text: "" };
  if (!TEXT_SUBTYPES.has(event.subtype) || event.text === undefined) return undefined;
  const dm = event.channel_type === "im";
  const sender = event.user ?? event.bot_id ?? "unknown";
  return {
    id: `${event.channel}:${event.ts}`,
    channel,
    chatId: event.channel,
    chatKind: dm ? "dm" : event.thread_ts && event.thread_ts !== event.ts ? "thread" : "group",
    // outside DMs the bot answers in the message's thread, which is also the conversation's session
    threadId: dm ? (event.thread_ts ?? null) : (event.thread_ts ?? event.ts),
    senderId: sender,
    senderDisplay: sender,
    senderIsBot: event.bot_id !== undefined || (botUserId !== null && event.user === botUserId),
    text: event.text,
    replyTo: null,
    mentioned: event.type === "app_mention" || (botUserId !== null && event.text.includes(`<@${botUserId}>`)),
    timestamp: Math.round(Number(event.ts) * 1000),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Slack: Socket Mode by default (app-level token), or the Events API through the gateway (mode = "events": v0 HMAC
 * signature and the 5-minute window checked, url_verification answered). Replies with chat.postMessage in the thread.
 */
export class SlackChannel extends PlatformChannel {
  readonly kind = "slack" as const;
  readonly capabilities = { edit: true, threads: true, maxMessageLength: SLACK_MAX_MESSAGE_CHARS, typing: false, attachments: true };
  private readonly token: string;
  private readonly base: string;
  private botUserId: string | null = null;
  private onMessage: OnMessage | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    this.token = this.requireSecret("token_env", "Slack bot token (xoxb-)", "SLACK_BOT_TOKEN");
    if (setup.config.mode === "events") this.requireSecret("secret_env", "Slack signing secret", "SLACK_SIGNING_SECRET");
    else this.requireSecret("app_token_env", "Slack app-level token (xapp-) for Socket Mode", "SLACK_APP_TOKEN");
    this.base = setup.config.api_base_url ?? SLACK_DEFAULT_API;
  }

  /** A shared file's bytes with the bot token, only from Slack's file host (or the configured API host). */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const url = new URL(attachment.ref);
    if (url.host !== "files.slack.com" && url.host !== new URL(this.base).host) {
      throw new PrxError("CHANNEL_PLATFORM", `a file URL on ${url.host} is not Slack's`);
    }
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const headers = { authorization: `Bearer ${this.token}` };
    const got = await platformDownload("slack", "file download", url.href, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `file download: HTTP ${got.status}`);
    return got.bytes;
  }

  private authTest() {
    return slackCall(this.base, this.token, "auth.test", {}, SlackAuthSchema, this.stopper.signal, this.limits.requestTimeoutMs);
  }

  /**
   * https://api.slack.com/methods/auth.test with the bot token. The app-level token is not checked here: the only call
   * that takes it (apps.connections.open) opens a Socket Mode connection, which would take events from a running one.
   */
  async checkCredentials(): Promise<string> {
    const auth = await this.authTest();
    const who = `Slack bot ${auth.user ?? auth.user_id} (${auth.user_id}${auth.team ? ` in ${auth.team}` : ""})`;
    return this.setup.config.mode === "events" ? who : `${who}; the app-level token is checked when Socket Mode connects`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    const auth = await withRetries(() => this.authTest(), this.stopper.signal);
    this.botUserId = auth.user_id;
    if (this.setup.config.mode === "events") {
      this.state = { ok: true, detail: "Events API through the gateway" };
      return;
    }
    const appToken = this.secret("app_token_env")!;
    let connected!: () => void;
    const first = new Promise<void>((resolve) => (connected = resolve));
    this.loop = runSlackSocket({
      open: async () => (await slackCall(this.base, appToken, "apps.connections.open", {}, SlackConnectionSchema, this.stopper.signal, this.limits.requestTimeoutMs)).url,
      onEvent: (payload) => this.handleCallback(payload),
      logger: this.setup.logger,
      signal: this.stopper.signal,
      onState: (ok, detail) => {
        this.state = { ok, detail };
        if (ok) connected();
      },
    });
    await this.firstConnection(first);
  }

  /** An event_callback payload (Socket Mode or Events API): message and app_mention events are stored. */
  private async handleCallback(payload: unknown): Promise<void> {
    const callback = SlackEventCallbackSchema.safeParse(payload);
    if (!callback.success) return this.setup.logger.warn("Slack: skipped a malformed event payload");
    const event = SlackMessageEventSchema.safeParse(callback.data.event);
    if (!event.success) return this.setup.logger.debug(`Slack: skipped a ${callback.data.event.type} event`);
    const message = normalizeSlack(this.name, event.data, this.botUserId);
    if (message) await this.onMessage!(message);
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    const reply = jsonAnswer;
    if (this.setup.config.mode !== "events") return reply(404, { error: "this Slack channel uses Socket Mode" });
    const secret = this.secret("secret_env")!;
    const check = verifySlackSignature(secret, request.headers[SLACK_TIMESTAMP_HEADER], request.headers[SLACK_SIGNATURE_HEADER], request.body, Date.now());
    const admitted = this.admitSigned(request, check);
    if ("refused" in admitted) return admitted.refused;
    const raw = admitted.json;
    const verification = SlackUrlVerificationSchema.safeParse(raw);
    if (verification.success) return reply(200, { challenge: verification.data.challenge });
    await this.handleCallback(raw);
    return this.storedAnswer(reply(200, {}));
  }

  /**
   * Slack's external upload (https://api.slack.com/messaging/files#uploading_files): files.getUploadURLExternal for
   * an upload URL, the bytes POSTed to it, then files.completeUploadExternal shares the file in the chat (and thread).
   * The file's id names the message.
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const call = <T>(method: string, params: Record<string, unknown>, schema: ZodType<T>) =>
      slackCall(this.base, this.token, method, params, schema, this.stopper.signal, this.limits.requestTimeoutMs, true);
    const { upload_url, file_id } = await call("files.getUploadURLExternal", { filename: attachment.name, length: attachment.bytes.byteLength }, SlackUploadUrlSchema);
    const form = new FormData();
    form.append("file", new Blob([attachment.bytes], { type: attachment.mime }), attachment.name);
    const sent = await platformRequest("slack", "file upload", upload_url, { method: "POST", body: form }, { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal });
    if (!sent.ok) throw new PlatformError("slack", `file upload: HTTP ${sent.status}`, sent.status, retryableStatus(sent.status));
    const share: Record<string, unknown> = { files: [{ id: file_id, title: attachment.name }], channel_id: target.chatId };
    if (target.threadId !== null) share.thread_ts = target.threadId;
    return (await call("files.completeUploadExternal", share, SlackUploadedSchema)).files[0]!.id;
  }

  async send(reply: OutboundReply): Promise<string> {
    const params: Record<string, unknown> = { channel: reply.chatId, text: reply.text };
    if (reply.threadId !== null) params.thread_ts = reply.threadId;
    const posted = await this.retrying("chat.postMessage", () =>
      slackCall(this.base, this.token, "chat.postMessage", params, SlackPostedSchema, this.stopper.signal, this.limits.requestTimeoutMs),
    );
    return posted.ts;
  }
}
