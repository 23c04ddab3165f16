import { createHmac, timingSafeEqual } from "node:crypto";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { jsonAnswer, PlatformChannel, refuseOversized } from "../base.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_ATTACHMENTS, TEAMS_MAX_INLINE_IMAGE_BYTES, TEAMS_MAX_MESSAGE_CHARS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { workspaceFile } from "../reply-files.ts";
import { platformDownload } from "../platform-download.ts";
import { platformJson } from "../platform-json.ts";
import type {
  ChannelSetup,
  ForwardedRequest,
  ForwardedResponse,
  InboundAttachment,
  InboundMessage,
  OnMessage,
  OutboundAttachment,
  OutboundReply,
  ReplyTarget,
} from "../types.ts";
import { RememberedChats } from "../remembered-chats.ts";
import { BotTokenVerifier } from "./jwt.ts";
import { BotTokens } from "./token.ts";
import {
  ActivitySchema,
  BOT_FRAMEWORK_ISSUER,
  BOT_FRAMEWORK_OPENID,
  ConsentContextSchema,
  FILE_CONSENT_CARD,
  FILE_CONSENT_INVOKE,
  FILE_INFO_CARD,
  FileConsentValueSchema,
  ResourceResponseSchema,
  type Activity,
} from "./wire.ts";

function isPersonal(activity: Activity): boolean {
  return activity.conversation.conversationType === "personal" || (activity.conversation.conversationType === undefined && !activity.conversation.isGroup);
}

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
  const personal = isPersonal(activity);
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
 * activity's serviceUrl with a client-credentials token (token.ts). Files a reply links: an image inline (a data URI,
 * any chat), any other file by the Teams bot APIs' file consent (personal chats only; see upload).
 */
export class TeamsChannel extends PlatformChannel {
  readonly kind = "teams" as const;
  readonly capabilities = { edit: true, threads: false, maxMessageLength: TEAMS_MAX_MESSAGE_CHARS, typing: true, attachments: true };
  private readonly verifier: BotTokenVerifier;
  private readonly tokens: BotTokens;
  private readonly tokenUrl: string;
  /** Each conversation's serviceUrl, from its last verified activity (replies go there). */
  private readonly serviceUrls = new RememberedChats<{ url: string; conversation: string; personal: boolean }>();
  /** The key consent cards' accept contexts are signed with (derived from the app password: any process of the bot can check them). */
  private readonly consentKey: string;
  /** Uploads of accepted files under way: stop() waits for them. */
  private readonly uploads = new Set<Promise<void>>();
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
    this.consentKey = createHmac("sha256", password).update("prx teams file consent").digest("hex");
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
    if (activity.data.type === "invoke" && activity.data.name === FILE_CONSENT_INVOKE) return this.fileConsent(activity.data);
    const message = normalizeTeams(this.name, activity.data);
    if (!message) return jsonAnswer(200, {});
    this.remember(activity.data);
    return this.acceptForwarded(this.onMessage!, message);
  }

  private remember(activity: Activity): void {
    this.serviceUrls.set(activity.conversation.id.slice(0, 256), { url: activity.serviceUrl, conversation: activity.conversation.id, personal: isPersonal(activity) });
  }

  private post(chatId: string, path: string, body: unknown): Promise<string> {
    return this.retrying("send activity", () => this.postOnce(chatId, path, body));
  }

  private async postOnce(chatId: string, path: string, body: unknown): Promise<string> {
    const fallback = this.setup.config.api_base_url;
    // after a restart, what was left unanswered goes to the configured service URL (api_base_url) when there is one
    const target = this.serviceUrls.get(chatId) ?? (fallback ? { url: fallback, conversation: chatId } : undefined);
    if (!target) {
      throw new PrxError("CHANNEL_PLATFORM", `teams: no serviceUrl known for conversation ${chatId} since this process started`, {
        hint: 'set api_base_url = "https://smba.trafficmanager.net/<region>/" in the channel table to reply after a restart too',
      });
    }
    const root = `${target.url.replace(/\/$/, "")}/v3/conversations/${encodeURIComponent(target.conversation)}/activities`;
    const sent = await platformJson({
      platform: "teams",
      what: "send activity",
      url: `${root}${path}`,
      headers: { authorization: `Bearer ${await this.tokens.get()}` },
      body,
      schema: ResourceResponseSchema,
      bounds: { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal },
    });
    return sent.id ?? "sent";
  }

  async send(reply: OutboundReply): Promise<string> {
    const body = { type: "message", text: reply.text, textFormat: "markdown", ...(reply.replyTo ? { replyToId: reply.replyTo } : {}) };
    return this.post(reply.chatId, reply.replyTo ? `/${encodeURIComponent(reply.replyTo)}` : "", body);
  }

  /**
   * An image within TEAMS_MAX_INLINE_IMAGE_BYTES goes inline, its bytes in a data URI attachment, in any chat
   * (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4#fetch-inline-images-from-message).
   * Any other file is offered with a FileConsentCard; the bytes go when the user accepts it (fileConsent). Teams lets
   * a bot send files this way in personal chats only: in a group chat or a channel it would need Microsoft Graph
   * and a SharePoint drive the bot has no access to, so there the file is refused and stays a link in the text.
   */
  protected override async upload(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const path = target.replyTo ? `/${encodeURIComponent(target.replyTo)}` : "";
    const reply = target.replyTo ? { replyToId: target.replyTo } : {};
    if (attachment.kind === "image" && attachment.bytes.byteLength <= TEAMS_MAX_INLINE_IMAGE_BYTES) {
      const contentUrl = `data:${attachment.mime};base64,${Buffer.from(attachment.bytes).toString("base64")}`;
      return this.postOnce(target.chatId, path, { type: "message", ...reply, attachments: [{ contentType: attachment.mime, contentUrl, name: attachment.name }] });
    }
    if (!this.personal(target.chatId)) {
      throw new PrxError("CHANNEL_PLATFORM", "teams: a bot can send files only in personal chats; the link stays in the text", {
        hint: "ask for the file in a personal chat with the bot",
      });
    }
    if (!attachment.path || attachment.bytes.byteLength === 0) throw new PrxError("CHANNEL_PLATFORM", `teams: ${attachment.name} is empty or not a workspace file`);
    const context = { file: attachment.path, mac: this.consentMac(target.chatId, attachment.path) };
    const card = { description: attachment.name, sizeInBytes: attachment.bytes.byteLength, acceptContext: context, declineContext: context };
    return this.postOnce(target.chatId, path, { type: "message", ...reply, attachments: [{ contentType: FILE_CONSENT_CARD, name: attachment.name, content: card }] });
  }

  /**
   * A personal chat: as its activities said, else (after a restart, or from message_send's adapter) by the id's
   * form: Teams names personal conversations `a:...`, group chats and channels `19:...@thread...`.
   */
  private personal(chatId: string): boolean {
    return this.serviceUrls.get(chatId)?.personal ?? chatId.startsWith("a:");
  }

  private consentMac(chatId: string, file: string): string {
    return createHmac("sha256", this.consentKey).update(`${chatId}\n${file}`).digest("base64url");
  }

  /**
   * The user's answer to a consent card. Declined: nothing is sent. Accepted: the invoke is answered at once and the
   * file (read again under the rules of reply files, from the workspace path the card signed for this conversation)
   * is PUT to the upload URL Teams gave, then shown with a FileInfoCard; a failure is said in the chat.
   */
  private fileConsent(activity: Activity): ForwardedResponse {
    const value = FileConsentValueSchema.safeParse(activity.value);
    if (!value.success) return jsonAnswer(400, { error: `not a file consent: ${value.error.issues[0]?.path.join(".")}` });
    const chatId = activity.conversation.id.slice(0, 256);
    this.remember(activity);
    if (value.data.action === "decline") return jsonAnswer(200, {});
    const context = ConsentContextSchema.safeParse(value.data.context);
    const info = value.data.uploadInfo;
    if (!context.success || !info || !this.signedFor(chatId, context.data.file, context.data.mac)) {
      this.setup.logger.warn(`teams: a file consent for no file this bot offered in ${chatId}`);
      return jsonAnswer(400, { error: "not a file this bot offered in this conversation" });
    }
    const upload = this.deliverAccepted(chatId, context.data.file, info).finally(() => this.uploads.delete(upload));
    this.uploads.add(upload);
    return jsonAnswer(200, {});
  }

  private signedFor(chatId: string, file: string, mac: string): boolean {
    const expected = Buffer.from(this.consentMac(chatId, file));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private async deliverAccepted(chatId: string, file: string, info: { contentUrl: string; name: string; uploadUrl: string; uniqueId: string; fileType: string }): Promise<void> {
    try {
      const workspace = this.setup.workspace;
      if (!workspace) throw new PrxError("CHANNEL_CONFIG", "teams: this process knows no workspace to read the file from");
      const found = await workspaceFile(workspace, file);
      if (!found) throw new PrxError("NOT_FOUND", `${file} is no longer a file of the workspace`);
      if ("note" in found) throw new PrxError("CHANNEL_PLATFORM", found.note);
      const size = found.bytes.byteLength;
      // one PUT of the whole file to the upload session (https://learn.microsoft.com/onedrive/developer/rest-api/api/driveitem_createuploadsession#upload-bytes-to-the-upload-session)
      const headers = { "content-type": found.mime, "content-range": `bytes 0-${size - 1}/${size}` };
      await this.retrying("file upload", async () => {
        const put = await platformRequest("teams", "file upload", info.uploadUrl, { method: "PUT", headers, body: found.bytes }, { timeoutMs: this.limits.requestTimeoutMs, signal: this.stopper.signal });
        if (!put.ok) throw new PlatformError("teams", `file upload: HTTP ${put.status}`, put.status, retryableStatus(put.status));
      });
      const card = { contentType: FILE_INFO_CARD, contentUrl: info.contentUrl, name: info.name, content: { uniqueId: info.uniqueId, fileType: info.fileType } };
      await this.post(chatId, "", { type: "message", attachments: [card] });
    } catch (error) {
      if (this.stopper.signal.aborted) {
        this.setup.logger.warn(`teams: the channel stopped while ${file} was sent to ${chatId}: ${errorMessage(error)}`);
        return;
      }
      this.setup.logger.error(`teams: ${file} was not uploaded to ${chatId}: ${errorMessage(error)}`);
      await this.post(chatId, "", { type: "message", text: `(${file} could not be sent: ${errorMessage(error).split("\n")[0]!.slice(0, 200)})` }).catch((failed: unknown) =>
        this.setup.logger.error(`teams: could not say so in ${chatId}: ${errorMessage(failed)}`),
      );
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    await Promise.allSettled(this.uploads);
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

