import type { MediaMime } from "../contracts/chat.ts";

/** What the bytes of a file say it is. */
export interface Sniffed {
  kind: "image" | "audio";
  mime: MediaMime;
  /** Short format name for notes: "png", "jpeg", "ogg", ... */
  format: string;
  width?: number;
  height?: number;
  /** Length of a WAV clip, from its header. */
  seconds?: number;
}

const ascii = (b: Uint8Array, at: number, text: string): boolean => {
  if (b.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;
const u32le = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + ((b[at + 3]! << 24) >>> 0);

/** Dimensions only when they are plausible (a truncated header yields none rather than garbage). */
function sized(s: Sniffed, width: number, height: number): Sniffed {
  if (width > 0 && height > 0 && width <= 1_000_000 && height <= 1_000_000) return { ...s, width, height };
  return s;
}

function jpegSize(b: Uint8Array, s: Sniffed): Sniffed {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return s;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized(s, u16be(b, at + 7), u16be(b, at + 5));
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    at += 2 + u16be(b, at + 2);
  }
  return s;
}

function webpSize(b: Uint8Array, s: Sniffed): Sniffed {
  if (ascii(b, 12, "VP8 ") && b.length >= 30) return sized(s, u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  if (ascii(b, 12, "VP8L") && b.length >= 25 && b[20] === 0x2f) {
    const bits = u32le(b, 21);
    return sized(s, (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (ascii(b, 12, "VP8X") && b.length >= 30) return sized(s, u24le(b, 24) + 1, u24le(b, 27) + 1);
  return s;
}

function wavSeconds(b: Uint8Array, s: Sniffed): Sniffed {
  let at = 12;
  let byteRate = 0;
  while (at + 8 <= b.length) {
    const size = u32le(b, at + 4);
    if (ascii(b, at, "fmt ") && at + 16 <= b.length) byteRate = u32le(b, at + 16);
    if (ascii(b, at, "data")) return byteRate > 0 ? { ...s, seconds: size / byteRate } : s;
    at += 8 + size + (size & 1);
  }
  return s;
}

/** The type of `bytes` read from their first bytes (PNG, JPEG, GIF, WebP; OGG, MP3, WAV, M4A), or null. */
export function sniffMedia(b: Uint8Array): Sniffed | null {
  if (b.length >= 24 && b[0] === 0x89 && ascii(b, 1, "PNG\r\n\x1a\n")) {
    return sized({ kind: "image", mime: "image/png", format: "png" }, u32be(b, 16), u32be(b, 20));
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    return jpegSize(b, { kind: "image", mime: "image/jpeg", format: "jpeg" });
  }
  if (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) {
    const s: Sniffed = { kind: "image", mime: "image/gif", format: "gif" };
    return b.length >= 10 ? sized(s, u16le(b, 6), u16le(b, 8)) : s;
  }
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) return webpSize(b, { kind: "image", mime: "image/webp", format: "webp" });
  if (ascii(b, 0, "OggS")) return { kind: "audio", mime: "audio/ogg", format: "ogg" };
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE")) return wavSeconds(b, { kind: "audio", mime: "audio/wav", format: "wav" });
  if (ascii(b, 4, "ftyp") && (ascii(b, 8, "M4A ") || ascii(b, 8, "M4B ") || ascii(b, 8, "mp42") || ascii(b, 8, "isom"))) {
    return { kind: "audio", mime: "audio/mp4", format: "m4a" };
  }
  if (ascii(b, 0, "ID3") || (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0)) {
    return { kind: "audio", mime: "audio/mpeg", format: "mp3" };
  }
  return null;
}
