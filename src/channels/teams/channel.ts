import { PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { jsonAnswer, PlatformChannel, refuseOversized } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, TEAMS_MAX_MESSAGE_CHARS } from "../limits.ts";
import { platformDownload } from "../platform-download.ts";
import { platformJson } from "../platform-json.ts";
import type { ChannelSetup, ForwardedRequest, ForwardedResponse, InboundAttachment, InboundMessage, OnMessage, OutboundReply } from "../types.ts";
import { RememberedChats } from "../remembered-chats.ts";
import { BotTokenVerifier } from "./jwt.ts";
import { BotTokens } from "./token.ts";
import { ActivitySchema, BOT_FRAMEWORK_ISSUER, BOT_FRAMEWORK_OPENID, ResourceResponseSchema, type Activity } from "./wire.ts";

/** A message activity -> the inbound shape; the bot's own `<at>` mention is taken out of the text. */
export function normalizeTeams(channel: string, activity: Activity): InboundMessage | undefined {
  if (activity.type !== "message") return undefined;
  const botMentions = (activity.entities ?? []).filter((e) => e.type === "mention" && e.mentioned?.id === activity.recipient.id);
  let text = activity.text ?? "";
  for (const mention of botMentions) if (mention.text) text = text.replace(mention.text, "");
  const attachments: InboundAttachment[] = [];
  for (const file of activity.attachments ?? []) {
    const kind = file.contentType.startsWith("image/") ? "image" : file.contentType.startsWith("audio/") ? "audio" : null;
    if (kind && file.contentUrl && attachments.length < CHANNEL_MAX_ATTACHMENTS) attachments.push({ kind, ref: file.contentUrl });
  }
  const personal = activity.conversation.conversationType === "personal" || (activity.conversation.conversationType === undefined && !activity.conversation.isGroup);
  return {
    id: activity.id,
    channel,
    chatId: activity.conversation.id.slice(0, 256),
    chatKind: personal ? "dm" : "group",
    threadId: null,
    senderId: activity.from.id,
    senderDisplay: (activity.from.name ?? activity.from.id).slice(0, 256),
    senderIsBot: activity.from.id === activity.recipient.id,
    text: text.trim(),
    replyTo: activity.id,
    mentioned: botMentions.length > 0,
    timestamp: (activity.timestamp && Date.parse(activity.timestamp)) || Date.now(),
    ...(attachments.length > 0 ? { attachments } : {}),
  };
}

/**
 * Microsoft Teams through the Bot Framework: activities POSTed to the gateway's `/channels/<name>/webhook` (the
 * messaging endpoint) are let in only with a valid Bot Framework token (jwt.ts); replies are POSTed to the
 * activity's serviceUrl with a client-credentials token (token.ts).
 */
export class TeamsChannel extends PlatformChannel {
  readonly kind = "teams" as const;
  readonly capabilities = { edit: true, threads: false, maxMessageLength: TEAMS_MAX_MESSAGE_CHARS, typing: true };
  private readonly verifier: BotTokenVerifier;
  private readonly tokens: BotTokens;
  private readonly tokenUrl: string;
  /** Each conversation's serviceUrl, from its last verified activity (replies go there). */
  private readonly serviceUrls = new RememberedChats<{ url: string; conversation: string }>();
  private onMessage: OnMessage | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    const appId = setup.config.app_id;
    if (!appId) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: Teams needs the bot's Microsoft App ID (app_id)`, {
        hint: `set app_id = "<the Azure Bot's app id>" in [channels.${this.name}]`,
      });
    }
    const password = this.requireSecret("secret_env", "Teams app password (client secret)", "TEAMS_APP_PASSWORD");
    this.verifier = new BotTokenVerifier({
      openIdUrl: setup.config.openid_url ?? BOT_FRAMEWORK_OPENID,
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: appId,
      timeoutMs: this.limits.requestTimeoutMs,
      signal: this.stopper.signal,
    });
    const tenant = setup.config.tenant_id ?? "botframework.com";
    this.tokenUrl = setup.config.token_url ?? `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
    this.tokens = new BotTokens({
      url: this.tokenUrl,
      appId,
      password,
      timeoutMs: this.limits.requestTimeoutMs,
      signal: this.stopper.signal,
    });
  }

  /** A client-credentials token from the token endpoint: it is granted only to the right app id and password. */
  async checkCredentials(): Promise<string> {
    await this.tokens.get();
    return `Teams app ${this.setup.config.app_id}: a Bot Framework token granted by ${new URL(this.tokenUrl).host}`;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
    // the credentials are checked once now: a wrong password fails the start, not the first reply
    await this.retrying("token", () => this.tokens.get());
    this.state = { ok: true, detail: "Bot Framework messaging endpoint through the gateway" };
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method !== "POST") return jsonAnswer(405, { error: "use POST" });
    const oversized = refuseOversized(request);
    if (oversized) return oversized;
    let raw: unknown = null;
    try {
      raw = parseJsonBounded(request.body, "body");
    } catch {
      // checked after the token: an unauthenticated caller learns nothing about the body
    }
    const activity = ActivitySchema.safeParse(raw);
    const check = await this.verifier.verify(request.headers.authorization, activity.success ? activity.data.serviceUrl : null, activity.success ? (activity.data.channelId ?? null) : null);
    if (!check.ok) {
      this.refuseRequest(check.reason);
      return jsonAnswer(401, { error: `unauthorized: ${check.reason}` });
    }
    if (!activity.success) return jsonAnswer(400, { error: raw === null ? "body is not JSON" : `not an activity: ${activity.error.issues[0]?.path.join(".")}` });
    const message = normalizeTeams(this.name, activity.data);
    if (!message) return jsonAnswer(200, {});
    this.serviceUrls.set(message.chatId, { url: activity.data.serviceUrl, conversation: activity.data.conversation.id });
    return this.acceptForwarded(this.onMessage!, message);
  }

  private async post(chatId: string, path: string, body: unknown): Promise<string> {
    const fallback = this.setup.config.api_base_url;
    // after a restart, what was left unanswered goes to the configured service URL (api_base_url) when there is one
    const target = this.serviceUrls.get(chatId) ?? (fallback ? { url: fallback, conversation: chatId } : undefined);
    if (!target) {
      throw new PrxError("CHANNEL_PLATFORM", `teams: no serviceUrl known for conversation ${chatId} since this process started`, {
        hint: 'set api_base_url = "https://smba.trafficmanager.net/<region>/" in the channel table to reply after a restart too',
      });
    }
    const root = `${target.url.replace(/\/$/, "")}/v3/conversations/${encodeURIComponent(target.conversation)}/activities`;
    const sent = await this.retrying("send activity", async () =>
      platformJson({
        platform: "teams",
        what: "send activity",
        url: `${root}${path}`,
        headers: { authorization: `Bearer ${await this.tokens.get()}` },
        body,
        schema: ResourceResponseSchema,
        bounds: { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal },
      }),
    );
    return sent.id ?? "sent";
  }

  async send(reply: OutboundReply): Promise<string> {
    const body = { type: "message", text: reply.text, textFormat: "markdown", ...(reply.replyTo ? { replyToId: reply.replyTo } : {}) };
    return this.post(reply.chatId, reply.replyTo ? `/${encodeURIComponent(reply.replyTo)}` : "", body);
  }

  override async typing(chatId: string): Promise<void> {
    await this.post(chatId, "", { type: "typing" });
  }

  /** An attachment's contentUrl, fetched with the bot's token when it is on the conversation's service. */
  async fetchAttachment(attachment: InboundAttachment, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
    const url = new URL(attachment.ref);
    const known = [...this.serviceUrls.values()].some((s) => new URL(s.url).host === url.host);
    const headers: Record<string, string> = known ? { authorization: `Bearer ${await this.tokens.get()}` } : {};
    if (url.protocol !== "https:" && !known) throw new PrxError("CHANNEL_PLATFORM", "teams: an attachment URL that is not https");
    const both = AbortSignal.any([signal, this.stopper.signal]);
    const got = await platformDownload("teams", "attachment download", url.href, { timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS, maxBytes, signal: both, headers });
    if (!got.ok) throw new PrxError("CHANNEL_PLATFORM", `teams: attachment download: HTTP ${got.status}`);
    return got.bytes;
  }
}

