/**
 * The two secrets of an Encrypt Key (https://open.feishu.cn/document/ukTMukTMukTM/uYDNxYjL2QTM24iN0EjN/event-subscription-configure-/encrypt-key-encryption-configuration-case):
 * the body `{"encrypt": base64(iv + AES-256-CBC(event))}` with key SHA-256(encrypt key) and PKCS#7 padding, and the
 * `X-Lark-Signature` header, the hex SHA-256 of timestamp + nonce + encrypt key + raw body.
 */
import { createDecipheriv, createHash, timingSafeEqual } from "node:crypto";
import { checkTimestamp, type SignatureCheck } from "../signature.ts";

/** The event inside `encrypt`, or undefined when it does not decrypt with this key (forged, or another app's key). */
export function decryptLarkEvent(encryptKey: string, encrypted: string): string | undefined {
  const data = Buffer.from(encrypted, "base64");
  if (data.length < 32 || data.length % 16 !== 0) return undefined;
  const key = createHash("sha256").update(encryptKey, "utf8").digest();
  try {
    const decipher = createDecipheriv("aes-256-cbc", key, data.subarray(0, 16));
    return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]).toString("utf8");
  } catch {
    // a wrong key shows as bad padding: the caller refuses the request and counts it
    return undefined;
  }
}

export function larkSignature(encryptKey: string, timestamp: string, nonce: string, body: string): string {
  return createHash("sha256").update(timestamp + nonce + encryptKey + body, "utf8").digest("hex");
}

/** The signature of a request, its timestamp inside SIGNATURE_WINDOW_S of `nowMs`. */
export function verifyLarkSignature(
  encryptKey: string,
  headers: { timestamp: string | undefined; nonce: string | undefined; signature: string | undefined },
  body: string,
  nowMs: number,
): SignatureCheck {
  if (!headers.signature) return { ok: false, reason: "missing X-Lark-Signature" };
  const time = checkTimestamp(headers.timestamp, nowMs);
  if (!time.ok) return time;
  if (headers.nonce === undefined) return { ok: false, reason: "missing X-Lark-Request-Nonce" };
  const expected = Buffer.from(larkSignature(encryptKey, headers.timestamp!, headers.nonce, body));
  const given = Buffer.from(headers.signature.toLowerCase());
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
