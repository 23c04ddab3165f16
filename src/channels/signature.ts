import { createHmac, timingSafeEqual } from "node:crypto";
import { SIGNATURE_WINDOW_S } from "./limits.ts";

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** Hex HMAC-SHA256 of `payload` with `secret`. */
export function hmacHex(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("hex");
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A timestamp (unix seconds, as text) inside the replay window around `nowMs`. */
export function checkTimestamp(raw: string | undefined, nowMs: number): SignatureCheck {
  if (raw === undefined || !/^\d{1,12}$/.test(raw)) return { ok: false, reason: "missing or malformed timestamp" };
  const skew = Math.abs(nowMs / 1000 - Number(raw));
  if (skew > SIGNATURE_WINDOW_S) return { ok: false, reason: `timestamp outside the ${SIGNATURE_WINDOW_S} s window` };
  return { ok: true };
}

/**
 * prx's webhook signature: `X-PRX-Timestamp: <unix seconds>` and `X-PRX-Signature: sha256=<hex>` where the hex is the
 * HMAC-SHA256 of `<timestamp>.<raw body>` with the shared secret (the timestamp is signed too, so the window holds).
 */
export function verifyPrxSignature(secret: string, timestamp: string | undefined, signature: string | undefined, body: string, nowMs: number): SignatureCheck {
  const time = checkTimestamp(timestamp, nowMs);
  if (!time.ok) return time;
  if (!signature?.startsWith("sha256=")) return { ok: false, reason: "missing signature" };
  return equal(signature, `sha256=${hmacHex(secret, `${timestamp}.${body}`)}`) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

export function signPrx(secret: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { "x-prx-timestamp": timestamp, "x-prx-signature": `sha256=${hmacHex(secret, `${timestamp}.${body}`)}` };
}

/**
 * Slack's v0 signature (https://api.slack.com/authentication/verifying-requests-from-slack): `X-Slack-Signature:
 * v0=<hex>` of HMAC-SHA256 over `v0:<X-Slack-Request-Timestamp>:<raw body>` with the signing secret; 5-minute window.
 */
export function verifySlackSignature(secret: string, timestamp: string | undefined, signature: string | undefined, body: string, nowMs: number): SignatureCheck {
  const time = checkTimestamp(timestamp, nowMs);
  if (!time.ok) return time;
  if (!signature?.startsWith("v0=")) return { ok: false, reason: "missing signature" };
  return equal(signature, `v0=${hmacHex(secret, `v0:${timestamp}:${body}`)}`) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

/**
 * Meta's webhook signature (WhatsApp Cloud API; https://developers.facebook.com/docs/graph-api/webhooks/getting-started#event-notifications):
 * `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body with the app secret. No timestamp: Meta
 * redelivers the same body for up to 7 days, and each message is answered once by its id.
 */
export function verifyHubSignature(appSecret: string, signature: string | undefined, body: string): SignatureCheck {
  if (!signature) return { ok: false, reason: "missing X-Hub-Signature-256" };
  if (!signature.startsWith("sha256=")) return { ok: false, reason: "malformed X-Hub-Signature-256" };
  return equal(signature, `sha256=${hmacHex(appSecret, body)}`) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

/**
 * LINE's webhook signature (https://developers.line.biz/en/reference/messaging-api/#signature-validation):
 * `x-line-signature`, the base64 of the HMAC-SHA256 of the raw body with the channel secret. No timestamp: each
 * event is answered once by its webhookEventId.
 */
export function verifyLineSignature(channelSecret: string, signature: string | undefined, body: string): SignatureCheck {
  if (!signature) return { ok: false, reason: "missing x-line-signature" };
  return equal(signature, createHmac("sha256", channelSecret).update(body).digest("base64")) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
