/**
 * A fake LINE Messaging API on 127.0.0.1, answering as LINE documents it
 * (https://developers.line.biz/en/reference/messaging-api/):
 * - every call needs `Authorization: Bearer <channel access token>`, else 401 `{message: "Authentication failed..."}`;
 * - GET /v2/bot/info (#get-bot-info): `{userId, basicId, displayName, chatMode, markAsReadMode}`;
 * - GET /v2/bot/profile/{userId} (#get-profile): `{userId, displayName, pictureUrl, language}` of a user who added
 *   the bot as a friend, else 404 `{message: "Not found"}`;
 * - POST /v2/bot/message/reply (#send-reply-message) `{replyToken, messages}` (1-5 messages; text at most 5,000
 *   characters): `{sentMessages: [{id, quoteToken}]}`; a token used before, expired or never issued is 400
 *   `{message: "Invalid reply token"}`;
 * - POST /v2/bot/message/push (#send-push-message) `{to, messages}` with an optional X-Line-Retry-Key: the same key
 *   again is 409 `{message: "The retry key is already accepted", sentMessages}` (#retry-api-request);
 * - POST /v2/bot/chat/loading/start (#display-a-loading-indicator) `{chatId, loadingSeconds}`: 202 `{}`;
 * - GET /v2/bot/message/{messageId}/content (#get-content, on api-data.line.me: the same server here): the bytes;
 * - LINE's side of the webhook (#webhooks, #signature-validation): `{destination, events}` POSTed with
 *   `x-line-signature`, base64 of the HMAC-SHA256 of the body with the channel secret; message events carry
 *   `webhookEventId`, `deliveryContext.isRedelivery`, `replyToken`, `source` and `message` (#message-event).
 */
import { createHmac } from "node:crypto";
import { waitFor } from "../helpers/wait.ts";

export interface LineSent {
  api: "reply" | "push";
  /** push: the recipient; reply: the chat the token was issued for. */
  to: string;
  text: string;
}

export interface FakeLine {
  url: string;
  token: string;
  channelSecret: string;
  botUserId: string;
  sent: LineSent[];
  loading: string[];
  /** Display names of users who added the bot as a friend (others have no profile for the bot). */
  friends: Map<string, string>;
  /** Content by message id (images, audio, files). */
  content: Map<string, Uint8Array>;
  /** A message event from a user: a DM unless `group`/`room`; a fresh reply token and webhookEventId each time. */
  event(a: { from: string; text?: string; group?: string; room?: string; mention?: boolean; image?: Uint8Array; redelivery?: boolean }): Record<string, unknown> & { webhookEventId: string };
  /** The same event as LINE redelivers it: same webhookEventId, `isRedelivery: true`. */
  redelivered(event: Record<string, unknown>): Record<string, unknown>;
  /** POST `{destination, events}` to the webhook: signed (default), forged (another secret) or unsigned. */
  deliver(webhookUrl: string, events: Array<Record<string, unknown>>, signing?: "valid" | "forged" | "missing"): Promise<Response>;
  /** Every reply token issued so far expires (as after LINE's short validity). */
  expireReplyTokens(): void;
  waitForSent(n: number, timeoutMs?: number): Promise<LineSent[]>;
  stop(): Promise<void>;
}

export function startFakeLine(): FakeLine {
  const token = "line-channel-access-token";
  const channelSecret = "line-channel-secret";
  const botUserId = "U00000000000000000000000000000b07";
  const replyTokens = new Map<string, { chat: string; valid: boolean }>();
  const retryKeys = new Set<string>();
  let seq = 0;
  const sign = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("base64");
  const unauthorized = () => Response.json({ message: "Authentication failed. Confirm that the access token in the authorization header is valid." }, { status: 401 });
  const badText = (messages: unknown) =>
    !Array.isArray(messages) || messages.length < 1 || messages.length > 5 || messages.some((m) => m?.type !== "text" || typeof m.text !== "string" || m.text.length < 1 || m.text.length > 5000);

  const fake: FakeLine = {
    url: "",
    token,
    channelSecret,
    botUserId,
    sent: [],
    loading: [],
    friends: new Map(),
    content: new Map(),
    event(a) {
      const n = ++seq;
      const id = String(500000000000000 + n);
      const chat = a.group ?? a.room ?? a.from;
      const replyToken = `reply-token-${n}`;
      replyTokens.set(replyToken, { chat, valid: true });
      const source = a.group ? { type: "group", groupId: a.group, userId: a.from } : a.room ? { type: "room", roomId: a.room, userId: a.from } : { type: "user", userId: a.from };
      let message: Record<string, unknown>;
      if (a.image) {
        fake.content.set(id, a.image);
        message = { type: "image", id, quoteToken: `q-${n}`, contentProvider: { type: "line" } };
      } else {
        const text = a.mention ? `@prx ${a.text ?? ""}` : (a.text ?? "");
        message = { type: "text", id, quoteToken: `q-${n}`, text };
        if (a.mention) message.mention = { mentionees: [{ index: 0, length: 4, type: "user", userId: botUserId, isSelf: true }] };
      }
      return {
        type: "message",
        message,
        webhookEventId: `01HZ${String(n).padStart(22, "0")}`,
        deliveryContext: { isRedelivery: a.redelivery ?? false },
        timestamp: Date.now(),
        source,
        replyToken,
        mode: "active",
      } as Record<string, unknown> & { webhookEventId: string };
    },
    redelivered(event) {
      return { ...event, deliveryContext: { isRedelivery: true } };
    },
    deliver(webhookUrl, events, signing = "valid") {
      const body = JSON.stringify({ destination: botUserId, events });
      const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "user-agent": "LineBotWebhook/2.0" };
      if (signing !== "missing") headers["x-line-signature"] = sign(signing === "valid" ? channelSecret : "not-the-secret", body);
      return fetch(webhookUrl, { method: "POST", headers, body });
    },
    expireReplyTokens() {
      for (const entry of replyTokens.values()) entry.valid = false;
    },
    async waitForSent(n, timeoutMs) {
      await waitFor(() => fake.sent.length >= n, () => `${n} LINE messages, got ${JSON.stringify(fake.sent)}`, timeoutMs);
      return fake.sent.slice(0, n);
    },
    stop: () => server.stop(true),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${token}`) return unauthorized();
      if (url.pathname === "/v2/bot/info" && request.method === "GET") {
        return Response.json({ userId: botUserId, basicId: "@123abcde", displayName: "prx", chatMode: "bot", markAsReadMode: "auto" });
      }
      const profile = /^\/v2\/bot\/profile\/([^/]+)$/.exec(url.pathname);
      if (profile && request.method === "GET") {
        const name = fake.friends.get(decodeURIComponent(profile[1]!));
        return name ? Response.json({ userId: decodeURIComponent(profile[1]!), displayName: name, pictureUrl: "https://profile.line-scdn.net/x", language: "en" }) : Response.json({ message: "Not found" }, { status: 404 });
      }
      const content = /^\/v2\/bot\/message\/(\d+)\/content$/.exec(url.pathname);
      if (content && request.method === "GET") {
        const bytes = fake.content.get(content[1]!);
        return bytes ? new Response(bytes, { headers: { "content-type": "image/jpeg" } }) : Response.json({ message: "Not found" }, { status: 404 });
      }
      if (request.method !== "POST") return Response.json({ message: "Not found" }, { status: 404 });
      const body = (await request.json()) as Record<string, any>;
      if (url.pathname === "/v2/bot/message/reply") {
        if (badText(body.messages)) return Response.json({ message: "The request body has 1 error(s)", details: [{ message: "May not be empty", property: "messages" }] }, { status: 400 });
        const entry = replyTokens.get(body.replyToken);
        if (!entry || !entry.valid) return Response.json({ message: "Invalid reply token" }, { status: 400 });
        entry.valid = false;
        for (const m of body.messages) fake.sent.push({ api: "reply", to: entry.chat, text: m.text });
        return Response.json({ sentMessages: body.messages.map(() => ({ id: String(++seq), quoteToken: `q-${seq}` })) });
      }
      if (url.pathname === "/v2/bot/message/push") {
        if (typeof body.to !== "string" || badText(body.messages)) return Response.json({ message: "The request body has 1 error(s)", details: [{ message: "must be specified", property: "to" }] }, { status: 400 });
        const sentMessages = body.messages.map(() => ({ id: String(++seq), quoteToken: `q-${seq}` }));
        const key = request.headers.get("x-line-retry-key");
        if (key !== null) {
          if (retryKeys.has(key)) return Response.json({ message: "The retry key is already accepted", sentMessages }, { status: 409 });
          retryKeys.add(key);
        }
        for (const m of body.messages) fake.sent.push({ api: "push", to: body.to, text: m.text });
        return Response.json({ sentMessages });
      }
      if (url.pathname === "/v2/bot/chat/loading/start") {
        fake.loading.push(String(body.chatId));
        return Response.json({}, { status: 202 });
      }
      return Response.json({ message: "Not found" }, { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
