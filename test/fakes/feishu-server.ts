/**
 * A fake Feishu / Lark Open Platform on 127.0.0.1, answering as its documentation says:
 * - POST /open-apis/auth/v3/tenant_access_token/internal `{app_id, app_secret}` -> `{code: 0, msg: "ok",
 *   tenant_access_token, expire}` (https://open.feishu.cn/document/ukTMukTMukTM/ukDNz4SO0MjL5QzM/auth-v3/auth/tenant_access_token_internal);
 *   a wrong secret is code 10014 "app secret invalid".
 * - Every other call wants `Authorization: Bearer <tenant_access_token>`; a token it did not issue (or revoked) is
 *   code 99991663 "Invalid access token for authorization" (https://open.feishu.cn/document/server-docs/api-call-guide/generic-error-code).
 * - GET /open-apis/bot/v3/info -> `{code: 0, msg: "ok", bot: {activate_status, app_name, avatar_url, ip_white_list,
 *   open_id}}` (https://open.feishu.cn/document/ukTMukTMukTM/uAjMxEjLwITMx4CMyETM).
 * - POST /open-apis/im/v1/messages/{message_id}/reply `{msg_type, content, reply_in_thread?, uuid?}` and
 *   POST /open-apis/im/v1/messages?receive_id_type=chat_id `{receive_id, msg_type, content}` -> `{code: 0, msg:
 *   "success", data: {message_id, chat_id, msg_type, body: {content}, ...}}`
 *   (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message/reply, .../message/create);
 *   a text body over 150 KB is code 230025, a reply to a withdrawn message 230011; content must be a JSON string
 *   `{"text": ...}`.
 * - GET /open-apis/im/v1/messages/{message_id}/resources/{file_key}?type=image|file -> the bytes
 *   (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message-resource/get).
 * - Rate limits as https://open.feishu.cn/document/server-docs/api-call-guide/frequency-control: HTTP 429 with
 *   `x-ogw-ratelimit-reset` (seconds) and `{code: 99991400, msg: "request trigger frequency limit"}`.
 * - The platform's side of the event subscription (https://open.feishu.cn/document/ukTMukTMukTM/uYDNxYjL2QTM24iN0EjN/event-subscription-configure-/encrypt-key-encryption-configuration-case):
 *   the url_verification POST `{challenge, token, type}`, and v2.0 events `{schema: "2.0", header: {event_id,
 *   event_type, create_time, token, app_id, tenant_key}, event}`; with an Encrypt Key the body is
 *   `{"encrypt": base64(iv + AES-256-CBC(SHA-256(key), PKCS#7))}` and the request carries X-Lark-Request-Timestamp,
 *   X-Lark-Request-Nonce and X-Lark-Signature = hex SHA-256(timestamp + nonce + key + body).
 */
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { waitFor } from "../helpers/wait.ts";

export interface FeishuSent {
  /** The message replied to, or null for a message created in the chat. */
  replyTo: string | null;
  chatId: string;
  text: string;
  id: string;
}

export type Signing = "valid" | "forged" | "missing" | "stale";

export interface FakeFeishu {
  /** The API root, as api_base_url. */
  url: string;
  appId: string;
  appSecret: string;
  verificationToken: string;
  /** Set: events are encrypted and signed with it. */
  encryptKey: string | undefined;
  botOpenId: string;
  sent: FeishuSent[];
  tokenRequests: number;
  /** A message event from a user (the chat is the user's DM unless `chat` and `chatType` say otherwise). */
  message(m: {
    from: string;
    text?: string;
    chat?: string;
    chatType?: "p2p" | "group";
    /** Mention the bot (its placeholder first in the text). */
    mentionBot?: boolean;
    type?: "text" | "image" | "file" | "audio";
    key?: string;
    fileName?: string;
    rootId?: string;
    threadId?: string;
    id?: string;
  }): Record<string, unknown>;
  /** Keep a message resource (an image or file key of a message). */
  resource(messageId: string, key: string, bytes: Uint8Array, mime: string): void;
  /** POST an event to the request URL, encrypted when an Encrypt Key is set, signed as `signing` says. */
  deliver(url: string, event: Record<string, unknown>, signing?: Signing): Promise<Response>;
  /** The request URL check the developer console runs when the URL is saved. */
  verifyUrl(url: string, token?: string): Promise<Response>;
  /** The sender withdraws a message: replies to it get 230011. */
  withdraw(messageId: string): void;
  /** Revoke every token issued so far (calls with them get 99991663). */
  revokeTokens(): void;
  fail(...failures: Array<{ status: number; code: number; msg?: string; resetS?: number }>): void;
  waitForSent(n: number, timeoutMs?: number): Promise<FeishuSent[]>;
  stop(): Promise<void>;
}

export const FEISHU_FAKE_MAX_TEXT_BODY_BYTES = 150 * 1024;

export function startFakeFeishu(options: { encryptKey?: string } = {}): FakeFeishu {
  const appId = "cli_a1b2c3d4e5f6a7b8";
  const appSecret = "fake-app-secret";
  const verificationToken = "fake-verification-token";
  const botOpenId = "ou_bot0000000000000000000000000000";
  const sent: FeishuSent[] = [];
  const tokens = new Set<string>();
  const chats = new Map<string, string>();
  const withdrawn = new Set<string>();
  const files = new Map<string, { bytes: Uint8Array; mime: string }>();
  const failures: Array<{ status: number; code: number; msg?: string; resetS?: number }> = [];
  let seq = 0;

  const fail = (status: number, code: number, msg: string, headers: Record<string, string> = {}) => Response.json({ code, msg }, { status, headers });

  const encrypt = (plain: string, key: string) => {
    const iv = randomBytes(16);
    const cipher = createCipheriv("aes-256-cbc", createHash("sha256").update(key).digest(), iv);
    return Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final()]).toString("base64");
  };
  const sealed = (plain: Record<string, unknown>) => (fake.encryptKey ? JSON.stringify({ encrypt: encrypt(JSON.stringify(plain), fake.encryptKey) }) : JSON.stringify(plain));

  const fake: FakeFeishu = {
    url: "",
    appId,
    appSecret,
    verificationToken,
    encryptKey: options.encryptKey,
    botOpenId,
    sent,
    tokenRequests: 0,
    message(m) {
      const id = m.id ?? `om_${(++seq).toString(16).padStart(32, "0")}`;
      const chat = m.chat ?? `oc_dm_${m.from}`;
      chats.set(id, chat);
      const type = m.type ?? "text";
      const mentions = m.mentionBot ? [{ key: "@_user_1", id: { open_id: botOpenId, union_id: "on_bot", user_id: "" }, name: "prx", tenant_key: "tk" }] : [];
      const content =
        type === "text"
          ? { text: `${m.mentionBot ? "@_user_1 " : ""}${m.text ?? ""}` }
          : type === "image"
            ? { image_key: m.key ?? "img_v3_fake" }
            : { file_key: m.key ?? "file_v3_fake", ...(m.fileName ? { file_name: m.fileName } : {}), ...(type === "audio" ? { duration: 2000 } : {}) };
      return {
        schema: "2.0",
        header: { event_id: `ev_${id}`, event_type: "im.message.receive_v1", create_time: String(Date.now()), token: verificationToken, app_id: appId, tenant_key: "tk" },
        event: {
          sender: { sender_id: { open_id: m.from, union_id: `on_${m.from}`, user_id: "" }, sender_type: "user", tenant_key: "tk" },
          message: {
            message_id: id,
            ...(m.rootId ? { root_id: m.rootId, parent_id: m.rootId } : {}),
            ...(m.threadId ? { thread_id: m.threadId } : {}),
            create_time: String(Date.now()),
            update_time: String(Date.now()),
            chat_id: chat,
            chat_type: m.chatType ?? "p2p",
            message_type: type,
            content: JSON.stringify(content),
            mentions,
            user_agent: "Mozilla/5.0",
          },
        },
      };
    },
    resource(messageId, key, bytes, mime) {
      files.set(`${messageId}/${key}`, { bytes, mime });
    },
    deliver(url, event, signing = "valid") {
      const body = sealed(event);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fake.encryptKey && signing !== "missing") {
        const timestamp = String(Math.floor(Date.now() / 1000) - (signing === "stale" ? 3600 : 0));
        const nonce = randomBytes(8).toString("hex");
        const key = signing === "forged" ? "guessed-key" : fake.encryptKey;
        headers["x-lark-request-timestamp"] = timestamp;
        headers["x-lark-request-nonce"] = nonce;
        headers["x-lark-signature"] = createHash("sha256").update(timestamp + nonce + key + body).digest("hex");
      }
      return fetch(url, { method: "POST", headers, body });
    },
    verifyUrl(url, token = verificationToken) {
      const body = sealed({ challenge: `ch-${++seq}`, token, type: "url_verification" });
      return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    },
    withdraw: (messageId) => void withdrawn.add(messageId),
    revokeTokens: () => tokens.clear(),
    fail: (...more) => void failures.push(...more),
    async waitForSent(n, timeoutMs) {
      await waitFor(() => sent.length >= n, () => `${n} Feishu messages sent, got ${JSON.stringify(sent.map((s) => s.text.slice(0, 80)))}`, timeoutMs);
      return sent.slice(0, n);
    },
    stop: () => server.stop(true),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      if (path === "/open-apis/auth/v3/tenant_access_token/internal" && request.method === "POST") {
        fake.tokenRequests++;
        const body = (await request.json().catch(() => null)) as { app_id?: string; app_secret?: string } | null;
        if (body?.app_id !== appId) return fail(400, 10003, "invalid param: app_id");
        if (body.app_secret !== appSecret) return fail(400, 10014, "app secret invalid");
        const token = `t-${randomBytes(20).toString("hex")}`;
        tokens.add(token);
        return Response.json({ code: 0, msg: "ok", tenant_access_token: token, expire: 7200 });
      }
      const bearer = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!bearer || !tokens.has(bearer)) return fail(400, 99991663, "Invalid access token for authorization. Please make a request with token attached.");
      if (path === "/open-apis/bot/v3/info" && request.method === "GET") {
        return Response.json({ code: 0, msg: "ok", bot: { activate_status: 2, app_name: "prx test", avatar_url: "", ip_white_list: [], open_id: botOpenId } });
      }
      const resource = /^\/open-apis\/im\/v1\/messages\/([\w-]+)\/resources\/([\w-]+)$/.exec(path);
      if (resource && request.method === "GET") {
        const type = url.searchParams.get("type");
        if (type !== "image" && type !== "file") return fail(400, 234001, "Invalid request param: type");
        const file = files.get(`${resource[1]}/${resource[2]}`);
        return file ? new Response(file.bytes, { headers: { "content-type": file.mime } }) : fail(400, 234003, "File not in msg.");
      }
      const reply = /^\/open-apis\/im\/v1\/messages\/([\w-]+)\/reply$/.exec(path);
      if (request.method !== "POST" || (!reply && path !== "/open-apis/im/v1/messages")) return fail(404, 404, "not found");
      const failure = failures.shift();
      if (failure) {
        const limited = failure.code === 99991400 ? { "x-ogw-ratelimit-limit": "50", "x-ogw-ratelimit-reset": String(failure.resetS ?? 0) } : undefined;
        return fail(failure.status, failure.code, failure.msg ?? "failure", limited);
      }
      const raw = await request.text();
      if (Buffer.byteLength(raw) > FEISHU_FAKE_MAX_TEXT_BODY_BYTES) return fail(400, 230025, "The length of the message content reaches its limit.");
      let body: { msg_type?: string; content?: string; receive_id?: string };
      let text: unknown;
      try {
        body = JSON.parse(raw);
        text = JSON.parse(body.content ?? "").text;
      } catch {
        return fail(400, 230001, "Your request contains an invalid request parameter: content is not a JSON string.");
      }
      if (body.msg_type !== "text" || typeof text !== "string" || text.length === 0) return fail(400, 230001, "Your request contains an invalid request parameter.");
      let chatId: string;
      if (reply) {
        const chat = chats.get(reply[1]!);
        if (withdrawn.has(reply[1]!)) return fail(400, 230011, "The message was withdrawn.");
        if (!chat) return fail(400, 230001, "Your request contains an invalid request parameter: message_id.");
        chatId = chat;
      } else {
        if (url.searchParams.get("receive_id_type") !== "chat_id" || !body.receive_id) return fail(400, 99992402, "field validation failed: receive_id");
        chatId = body.receive_id;
      }
      const id = `om_sent${++seq}`;
      chats.set(id, chatId);
      sent.push({ replyTo: reply ? reply[1]! : null, chatId, text, id });
      return Response.json({ code: 0, msg: "success", data: { message_id: id, chat_id: chatId, msg_type: "text", body: { content: body.content }, create_time: String(Date.now()) } });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
