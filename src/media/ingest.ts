import type { MediaRef } from "../contracts/chat.ts";
import { PrxError } from "../core/errors.ts";
import { AUDIO_MAX_BYTES, AUDIO_MAX_SECONDS, IMAGE_MAX_BYTES, IMAGE_URL_MAX_CHARS, MESSAGE_MAX_IMAGES } from "./limits.ts";
import { sniffMedia, type Sniffed } from "./sniff.ts";

const tooLarge = (what: string, size: number, max: number) =>
  new PrxError("PAYLOAD_TOO_LARGE", `${what} of ${size} bytes is over the limit of ${max} bytes`, {
    status: 413,
    hint: "send a smaller file",
  });

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** An image from its bytes: the type is read from the bytes (PNG, JPEG, GIF, WebP), the size bounded by IMAGE_MAX_BYTES. */
export function imageFromBytes(bytes: Uint8Array, options: { detail?: MediaRef["detail"]; where?: string } = {}): MediaRef {
  const where = options.where ?? "the image";
  if (bytes.length > IMAGE_MAX_BYTES) throw tooLarge(where, bytes.length, IMAGE_MAX_BYTES);
  const sniffed = imageType(sniffMedia(bytes), where);
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return withFacts({ kind: "image", mime: sniffed.mime, sha256: sha256Hex(bytes), bytes: bytes.length, data }, sniffed, options.detail);
}

/** What sniffMedia said, when it is an image; 415 otherwise. */
function imageType(sniffed: Sniffed | null, where: string): Sniffed {
  if (!sniffed || sniffed.kind !== "image") {
    throw new PrxError("UNSUPPORTED_MEDIA_TYPE", `${where} is not a PNG, JPEG, GIF or WebP image${sniffed ? ` (it is ${sniffed.format})` : ""}`, {
      status: 415,
      hint: "send the image as PNG, JPEG, GIF or WebP",
    });
  }
  return sniffed;
}

function withFacts(ref: MediaRef, sniffed: Sniffed, detail: MediaRef["detail"] | undefined): MediaRef {
  if (sniffed.width) ref.width = sniffed.width;
  if (sniffed.height) ref.height = sniffed.height;
  if (detail) ref.detail = detail;
  return ref;
}

/** Base64 is read in pieces of this many characters (whole 4-character groups), each decoded into `piece`. */
const PIECE_CHARS = 64 * 1024;
const piece = new Uint8Array((PIECE_CHARS / 4) * 3);

/**
 * Base64 text read through without keeping its bytes (they would be a fresh buffer the size of the image on every
 * image turn): the number of bytes it decodes to and what its first piece's bytes say it is. Null when the text has
 * a character outside base64's standard alphabet (setFromBase64 throws on one; it skips spaces, which shows in the
 * count). A JPEG's size can come after the first piece: then it is read from all of the bytes.
 */
function scanBase64(base64: string): { size: number; sniffed: Sniffed | null } | null {
  let size = 0;
  let sniffed: Sniffed | null = null;
  try {
    for (let at = 0; at < base64.length; at += PIECE_CHARS) {
      const { written } = piece.setFromBase64(base64.slice(at, at + PIECE_CHARS));
      if (at === 0) sniffed = sniffMedia(piece.subarray(0, written));
      size += written;
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return null;
  }
  if (sniffed?.mime === "image/jpeg" && !sniffed.width && size > piece.length) sniffed = sniffMedia(Uint8Array.fromBase64(base64));
  return { size, sniffed };
}

/**
 * An image from its base64 encoding (a data URL's data, an Anthropic base64 source). The encoding must be clean:
 * only base64's characters, padded, no spaces, because it goes into provider requests as it is (no quote,
 * backslash or space can break out of the JSON string it is written into). `what` names the data in the error.
 */
export function imageFromBase64(
  base64: string,
  options: { detail?: MediaRef["detail"]; where?: string; what?: string } = {},
): MediaRef {
  const where = options.where ?? "the image";
  // base64 is 4 characters per 3 bytes: refuse before decoding what cannot fit
  if (base64.length > Math.ceil(IMAGE_MAX_BYTES / 3) * 4 + 4) throw tooLarge(where, Math.floor((base64.length * 3) / 4), IMAGE_MAX_BYTES);
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  // a clean encoding decodes to exactly its length's worth of bytes; spaces and misplaced padding decode to fewer
  const expected = (base64.length / 4) * 3 - padding;
  const scanned = base64.length % 4 === 0 ? (scanBase64(base64) ?? lenientScan(base64)) : null;
  if (!scanned || scanned.size !== expected) {
    throw new PrxError("BAD_REQUEST", `${where}: ${options.what ?? "the image's data"} is not base64`, { status: 400 });
  }
  if (scanned.size > IMAGE_MAX_BYTES) throw tooLarge(where, scanned.size, IMAGE_MAX_BYTES);
  const sniffed = imageType(scanned.sniffed, where);
  return withFacts({ kind: "image", mime: sniffed.mime, bytes: scanned.size, data: base64 }, sniffed, options.detail);
}

/**
 * Text with a character outside the standard alphabet, decoded as Buffer does (it also reads base64url's `-` and
 * `_`, and skips what it cannot read), as such data URLs always were: the count still tells a clean encoding.
 */
function lenientScan(base64: string): { size: number; sniffed: Sniffed | null } {
  const bytes = Buffer.from(base64, "base64");
  return { size: bytes.length, sniffed: sniffMedia(bytes) };
}

const DATA_URL = /^data:([a-z0-9.+/-]*)((?:;[a-z0-9=.+-]+)*);base64,/i;

/** An image from a `data:<type>;base64,<data>` URL; the declared type is ignored, the bytes say what it is. */
export function imageFromDataUrl(url: string, options: { detail?: MediaRef["detail"]; where?: string } = {}): MediaRef {
  const where = options.where ?? "the image";
  const head = DATA_URL.exec(url.slice(0, 256));
  if (!head) {
    throw new PrxError("BAD_REQUEST", `${where}: a data URL must be data:<type>;base64,<data>`, { status: 400 });
  }
  return imageFromBase64(url.slice(head[0].length), { ...options, what: "the data URL's data" });
}

/** An https image URL the provider fetches itself (prx does not fetch it). */
export function imageFromHttpsUrl(url: string, options: { detail?: MediaRef["detail"]; where?: string } = {}): MediaRef {
  const where = options.where ?? "the image";
  if (url.length > IMAGE_URL_MAX_CHARS) {
    throw new PrxError("BAD_REQUEST", `${where}: the URL is over ${IMAGE_URL_MAX_CHARS} characters`, { status: 400 });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PrxError("BAD_REQUEST", `${where}: not a URL; an image URL must be https: or data:`, { status: 400 });
  }
  if (parsed.protocol !== "https:") {
    throw new PrxError("BAD_REQUEST", `${where}: an image URL must be https: or data:, got ${parsed.protocol}`, {
      status: 400,
      hint: "send the image inline as a data: URL",
    });
  }
  return options.detail ? { kind: "image", url, detail: options.detail } : { kind: "image", url };
}

/** An image given as a URL: data: (decoded here) or https: (passed on). */
export function imageFromUrl(url: string, options: { detail?: MediaRef["detail"]; where?: string } = {}): MediaRef {
  return url.startsWith("data:") ? imageFromDataUrl(url, options) : imageFromHttpsUrl(url, options);
}

/** An audio clip from its bytes (OGG/Opus, MP3, WAV, M4A), bounded in bytes and, when known, in seconds. */
export function audioFromBytes(bytes: Uint8Array, options: { seconds?: number; where?: string } = {}): MediaRef {
  const where = options.where ?? "the audio";
  if (bytes.length > AUDIO_MAX_BYTES) throw tooLarge(where, bytes.length, AUDIO_MAX_BYTES);
  const sniffed = sniffMedia(bytes);
  if (!sniffed || sniffed.kind !== "audio") {
    throw new PrxError("UNSUPPORTED_MEDIA_TYPE", `${where} is not OGG, MP3, WAV or M4A audio`, {
      status: 415,
      hint: "send the audio as OGG/Opus, MP3, WAV or M4A",
    });
  }
  const seconds = options.seconds ?? sniffed.seconds;
  if (seconds !== undefined && seconds > AUDIO_MAX_SECONDS) {
    throw new PrxError("PAYLOAD_TOO_LARGE", `${where} is ${Math.round(seconds)} s long, over the limit of ${AUDIO_MAX_SECONDS} s`, {
      status: 413,
      hint: "send a shorter clip",
    });
  }
  const ref: MediaRef = {
    kind: "audio",
    mime: sniffed.mime,
    sha256: sha256Hex(bytes),
    bytes: bytes.length,
    data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
  };
  if (seconds !== undefined) ref.seconds = seconds;
  return ref;
}

/** At most MESSAGE_MAX_IMAGES images in one message. */
export function checkImageCount(count: number, where = "the message"): void {
  if (count > MESSAGE_MAX_IMAGES) {
    throw new PrxError("LIMIT_EXCEEDED", `${where} has ${count} images; the limit is ${MESSAGE_MAX_IMAGES}`, {
      status: 400,
      hint: `send at most ${MESSAGE_MAX_IMAGES} images per message`,
    });
  }
}

/** The ref as stored with a message: without its bytes. */
export function storedRef(ref: MediaRef): MediaRef {
  if (ref.data === undefined) return ref;
  const { data: _data, ...rest } = ref;
  return rest;
}

/** The ref with its content hash, computed from the bytes it carries when it has none yet. */
export function withHash(ref: MediaRef): MediaRef {
  if (ref.sha256 || ref.data === undefined) return ref;
  return { ...ref, sha256: sha256Hex(refBytes(ref)!) };
}

/** The bytes a ref carries in flight. */
export function refBytes(ref: MediaRef): Uint8Array | null {
  return ref.data === undefined ? null : Buffer.from(ref.data, "base64");
}
