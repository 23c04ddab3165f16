/**
 * A fake WhatsApp Business Cloud API on 127.0.0.1, answering as Meta documents it:
 * - Graph API with a bearer token: GET /{version}/{phone-number-id} (the phone number node), POST
 *   /{version}/{phone-number-id}/messages (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages:
 *   `messaging_product: "whatsapp"` required; answers `{messaging_product, contacts: [{input, wa_id}], messages: [{id}]}`;
 *   `status: "read"` marks a message read and answers `{success: true}`), GET /{version}/{media-id}
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#retrieve-media-url: `{url, mime_type,
 *   sha256, file_size, id, messaging_product}`) and the media URL itself, only with the bearer token; POST
 *   /{version}/{phone-number-id}/media (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media#upload-media:
 *   multipart `messaging_product`, `type`, `file`; answers `{id}`), and `image` / `document` messages naming an
 *   uploaded media id (images only JPEG or PNG, as the supported media types say).
 * - Errors as Graph error objects `{error: {message, type, code, error_subcode, fbtrace_id}}`
 *   (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes): 131047 "Re-engagement message" for
 *   a free-form message more than 24 hours after the user's last one, 130429 for a rate limit (HTTP 429).
 * - Meta's side of the webhook (https://developers.facebook.com/docs/graph-api/webhooks/getting-started): the GET
 *   verification with hub.mode, hub.verify_token, hub.challenge, and notifications POSTed with
 *   `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body with the app secret>`
 *   (payloads as in https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/payload-examples).
 */
import { createHmac } from "node:crypto";
import { waitFor } from "../helpers/wait.ts";

export interface WhatsAppSent {
  to: string;
  type: string;
  text?: string;
  /** An image or document message: the media's bytes, type and (documents) file name. */
  media?: { bytes: Uint8Array; mime: string; filename?: string };
  template?: string;
  contextId?: string;
  id: string;
}

export interface FakeWhatsApp {
  /** The Graph API root, as api_base_url (versions go after it). */
  url: string;
  token: string;
  appSecret: string;
  verifyToken: string;
  phoneNumberId: string;
  sent: WhatsAppSent[];
  /** Message ids marked read. */
  reads: string[];
  /** The fake's clock (epoch ms) for the 24-hour window; tests move it. */
  now: number;
  /** Keep a media file; returns its media id. */
  media(bytes: Uint8Array, mimeType: string): string;
  /** A notification with these messages, as Meta POSTs it (contacts named by `names`). */
  notification(messages: Array<Record<string, unknown>>, names?: Record<string, string>): string;
  /** A text message object from a user (the user's last message time is remembered for the window). */
  text(from: string, body: string, options?: { id?: string; timestampS?: number }): Record<string, unknown>;
  /** POST a notification to the app's webhook: signed (default), forged (wrong secret) or unsigned. */
  deliver(webhookUrl: string, body: string, signing?: "valid" | "forged" | "missing"): Promise<Response>;
  /** Meta's verification GET to the app's webhook. */
  verify(webhookUrl: string, verifyToken: string, challenge: string): Promise<Response>;
  fail(...failures: Array<{ status: number; code: number; message?: string }>): void;
  waitForSent(n: number, timeoutMs?: number): Promise<WhatsAppSent[]>;
  stop(): Promise<void>;
}

export function startFakeWhatsApp(): FakeWhatsApp {
  const token = "EAAG-test-token";
  const appSecret = "app-secret-test";
  const verifyToken = "verify-me";
  const phoneNumberId = "106540352242922";
  const sent: WhatsAppSent[] = [];
  const reads: string[] = [];
  const lastFromUser = new Map<string, number>();
  const files = new Map<string, { bytes: Uint8Array; mime: string }>();
  const failures: Array<{ status: number; code: number; message?: string }> = [];
  let seq = 0;

  const graphError = (status: number, code: number, message: string) =>
    Response.json({ error: { message, type: "OAuthException", code, error_subcode: 2494010, fbtrace_id: "Afake" } }, { status });

  const fake: FakeWhatsApp = {
    url: "",
    token,
    appSecret,
    verifyToken,
    phoneNumberId,
    sent,
    reads,
    now: Date.now(),
    media(bytes, mime) {
      const id = String(900_000_000 + ++seq);
      files.set(id, { bytes, mime });
      return id;
    },
    notification(messages, names = {}) {
      const contacts = [...new Set(messages.map((m) => String(m.from)))].map((wa_id) => ({ profile: { name: names[wa_id] ?? "User" }, wa_id }));
      return JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "102290129340398",
            changes: [
              {
                value: { messaging_product: "whatsapp", metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId }, contacts, messages },
                field: "messages",
              },
            ],
          },
        ],
      });
    },
    text(from, body, options = {}) {
      const timestampS = options.timestampS ?? Math.floor(fake.now / 1000);
      lastFromUser.set(from, Math.max(lastFromUser.get(from) ?? 0, timestampS * 1000));
      return { from, id: options.id ?? `wamid.HBgL${++seq}`, timestamp: String(timestampS), text: { body }, type: "text" };
    },
    async deliver(webhookUrl, body, signing = "valid") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (signing !== "missing") headers["x-hub-signature-256"] = `sha256=${createHmac("sha256", signing === "valid" ? appSecret : "guessed").update(body).digest("hex")}`;
      return fetch(webhookUrl, { method: "POST", headers, body });
    },
    verify(webhookUrl, given, challenge) {
      const query = new URLSearchParams({ "hub.mode": "subscribe", "hub.verify_token": given, "hub.challenge": challenge });
      return fetch(`${webhookUrl}?${query}`);
    },
    fail: (...more) => void failures.push(...more),
    async waitForSent(n, timeoutMs) {
      await waitFor(() => sent.length >= n, () => `${n} WhatsApp sends, got ${JSON.stringify(sent)}`, timeoutMs);
      return sent.slice(0, n);
    },
    stop: () => server.stop(true),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${token}`) return graphError(401, 190, "Invalid OAuth access token.");
      const file = /^\/media\/(\d+)$/.exec(url.pathname);
      if (file) {
        const stored = files.get(file[1]!);
        return stored ? new Response(stored.bytes, { headers: { "content-type": stored.mime } }) : new Response("not found", { status: 404 });
      }
      const upload = /^\/v\d+\.\d+\/(\d+)\/media$/.exec(url.pathname);
      if (upload && request.method === "POST") {
        if (upload[1] !== phoneNumberId) return graphError(400, 100, "Unsupported post request");
        const form = await request.formData().catch(() => null);
        const file = form?.get("file");
        if (!form || form.get("messaging_product") !== "whatsapp") return graphError(400, 100, "The parameter messaging_product is required.");
        if (!file || typeof file === "string") return graphError(400, 100, "The parameter file is required.");
        return Response.json({ id: fake.media(new Uint8Array(await file.arrayBuffer()), String(form.get("type") ?? file.type)) });
      }
      const path = /^\/v\d+\.\d+\/(\d+)(\/messages)?$/.exec(url.pathname);
      if (!path) return graphError(400, 100, "Unsupported request");
      const [, id, messages] = path;
      if (!messages && request.method === "GET") {
        if (id === phoneNumberId) return Response.json({ verified_name: "prx test", display_phone_number: "+1 555-078-3881", id, quality_rating: "GREEN" });
        const stored = files.get(id!);
        if (!stored) return graphError(404, 100, "Unsupported get request.");
        return Response.json({ messaging_product: "whatsapp", url: `${fake.url}/media/${id}`, mime_type: stored.mime, sha256: "0", file_size: stored.bytes.length, id });
      }
      if (!messages || request.method !== "POST" || id !== phoneNumberId) return graphError(400, 100, "Unsupported post request");
      const failure = failures.shift();
      if (failure) return graphError(failure.status, failure.code, failure.message ?? "failure");
      const body = (await request.json().catch(() => null)) as Record<string, any> | null;
      if (!body || body.messaging_product !== "whatsapp") return graphError(400, 100, "The parameter messaging_product is required.");
      if (body.status === "read") {
        reads.push(String(body.message_id));
        return Response.json({ success: true });
      }
      const to = String(body.to ?? "");
      if (!to) return graphError(400, 100, "The parameter to is required.");
      let media: WhatsAppSent["media"];
      if (body.type === "image" || body.type === "document") {
        const stored = files.get(String(body[body.type]?.id ?? ""));
        if (!stored) return graphError(400, 131053, "Media upload error");
        if (body.type === "image" && !["image/jpeg", "image/png"].includes(stored.mime)) return graphError(400, 131053, "Media upload error");
        media = { bytes: stored.bytes, mime: stored.mime, ...(body.document?.filename ? { filename: body.document.filename } : {}) };
      }
      if (body.type === "text" || media) {
        const text = body.text?.body;
        if (body.type === "text" && (typeof text !== "string" || text.length < 1 || text.length > 4096)) return graphError(400, 100, "Param text['body'] must be 1-4096 characters");
        const last = lastFromUser.get(to);
        if (last === undefined || fake.now - last > 24 * 60 * 60 * 1000) {
          return graphError(400, 131047, "Re-engagement message");
        }
      } else if (body.type !== "template") return graphError(400, 100, `type ${body.type} not supported by the fake`);
      const wamid = `wamid.OUT${++seq}`;
      sent.push({
        to,
        type: body.type,
        ...(body.type === "text" ? { text: body.text.body } : media ? { media } : { template: body.template?.name }),
        ...(body.context?.message_id ? { contextId: body.context.message_id } : {}),
        id: wamid,
      });
      return Response.json({ messaging_product: "whatsapp", contacts: [{ input: to, wa_id: to }], messages: [{ id: wamid }] });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
