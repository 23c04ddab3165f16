import { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { WEBHOOK_MAX_MESSAGE_CHARS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { signPrx, verifyPrxSignature } from "../signature.ts";
import { jsonAnswer, PlatformChannel } from "../base.ts";
import type { ChannelHealth, ChannelSetup, ForwardedRequest, ForwardedResponse, OnMessage, OutboundReply } from "../types.ts";

/** The body of a signed POST to /channels/<name>/webhook. */
export const WebhookInboundSchema = z.strictObject({
  id: z.string().min(1).max(256),
  sender_id: z.string().min(1).max(256),
  sender_name: z.string().max(256).optional(),
  chat_id: z.string().min(1).max(256).optional(),
  chat_kind: z.enum(["dm", "group", "thread"]).default("dm"),
  thread_id: z.string().min(1).max(256).optional(),
  is_bot: z.boolean().default(false),
  mentioned: z.boolean().default(true),
  text: z.string(),
});

/** What the callback URL receives (signed the same way), one POST per reply part. */
export const WebhookCallbackSchema = z.strictObject({
  reply_to: z.string().nullable(),
  chat_id: z.string(),
  thread_id: z.string().nullable(),
  text: z.string(),
});

const json = jsonAnswer;

/**
 * A generic signed webhook: POSTs signed with HMAC-SHA256 (X-PRX-Timestamp, X-PRX-Signature over "<ts>.<raw body>",
 * 5-minute window) arrive through the gateway; the reply is returned in the response, or POSTed to `callback_url`
 * signed the same way when one is configured.
 */
export class WebhookChannel extends PlatformChannel {
  readonly kind = "webhook" as const;
  readonly capabilities = { edit: false, threads: true, maxMessageLength: WEBHOOK_MAX_MESSAGE_CHARS, typing: false };
  private readonly signingSecret: string;
  private onMessage: OnMessage | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    const secret = this.secret("secret_env");
    if (!secret) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${setup.name}: no signing secret (secret_env ${setup.config.secret_env ?? "is not set"})`, {
        hint: `set secret_env = "PRX_WEBHOOK_SECRET" in [channels.${setup.name}] and export that variable`,
      });
    }
    this.signingSecret = secret;
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.onMessage = onMessage;
  }

  async handleHttp(request: ForwardedRequest): Promise<ForwardedResponse> {
    if (request.method !== "POST") return json(405, { error: "use POST" });
    const check = verifyPrxSignature(this.signingSecret, request.headers["x-prx-timestamp"], request.headers["x-prx-signature"], request.body, Date.now());
    const admitted = this.admitSigned(request, check);
    if ("refused" in admitted) return admitted.refused;
    const parsed = WebhookInboundSchema.safeParse(admitted.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return json(400, { error: `invalid body: ${issue?.path.join(".")}: ${issue?.message}` });
    }
    const body = parsed.data;
    await this.onMessage!({
      id: body.id,
      channel: this.name,
      chatId: body.chat_id ?? body.sender_id,
      chatKind: body.chat_kind,
      threadId: body.thread_id ?? null,
      senderId: body.sender_id,
      senderDisplay: body.sender_name ?? body.sender_id,
      senderIsBot: body.is_bot,
      text: body.text,
      replyTo: null,
      mentioned: body.mentioned,
      timestamp: Date.now(),
    });
    // asked once the message is stored: an answer settled meanwhile is kept for it, and a message that could not be
    // stored (its host did not open) leaves no waiter behind
    const waiting = this.setup.config.callback_url ? undefined : this.setup.awaitReply?.(body.id);
    if (!waiting) return json(202, { id: body.id, accepted: true });
    try {
      const parts = await waiting;
      return json(200, { id: body.id, reply: parts.join("\n\n"), parts });
    } catch (error) {
      return json(202, { id: body.id, accepted: true, note: errorMessage(error) });
    }
  }

  async send(reply: OutboundReply): Promise<string> {
    const url = this.setup.config.callback_url;
    if (!url) {
      // the reply is already the waiting request's answer: resolved on the next turn of the event loop, so that the
      // runner records the delivery (a database write) after that answer has gone to the gateway, not before it
      await new Promise<void>((resolve) => setImmediate(resolve));
      return `${reply.replyTo ?? "reply"}:inline`;
    }
    const body = JSON.stringify(WebhookCallbackSchema.parse({ reply_to: reply.replyTo, chat_id: reply.chatId, thread_id: reply.threadId, text: reply.text }));
    await this.retrying("callback", async () => {
        const init = { method: "POST", headers: { "content-type": "application/json", ...signPrx(this.signingSecret, body, Date.now()) }, body };
        const response = await platformRequest("webhook", "callback", url, init, {
          timeoutMs: this.limits.requestTimeoutMs,
          signal: this.stopper.signal,
        });
        if (!response.ok) throw new PlatformError("webhook", `callback answered HTTP ${response.status}`, response.status, retryableStatus(response.status));
    });
    return `${reply.replyTo ?? "reply"}:callback`;
  }

  override health(): ChannelHealth {
    return { ok: true, detail: this.setup.config.callback_url ? "replies to the callback URL" : "replies in the response" };
  }
}
