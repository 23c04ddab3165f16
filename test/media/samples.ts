/** Minimal files of each type prx reads, built byte by byte as their formats specify (headers only, padded). */

function be32(n: number): number[] {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
}
function le16(n: number): number[] {
  return [n & 255, (n >>> 8) & 255];
}
function le24(n: number): number[] {
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];
}
function le32(n: number): number[] {
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
}
function padded(head: number[], size: number): Uint8Array {
  const bytes = new Uint8Array(Math.max(size, head.length));
  bytes.set(head);
  return bytes;
}

/** PNG signature and IHDR chunk of a width x height image, padded to `size` bytes. */
export function png(width: number, height: number, size = 64): Uint8Array {
  return padded([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...be32(13), 0x49, 0x48, 0x44, 0x52, ...be32(width), ...be32(height), 8, 6, 0, 0, 0], size);
}

/** JPEG: SOI, an APP0 segment, then SOF0 with the frame size. */
export function jpeg(width: number, height: number, size = 64): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, (height >> 8) & 255, height & 255, (width >> 8) & 255, width & 255, 3];
  return padded([0xff, 0xd8, ...app0, ...sof0], size);
}

export function gif(width: number, height: number, size = 64): Uint8Array {
  return padded([...new TextEncoder().encode("GIF89a"), ...le16(width), ...le16(height)], size);
}

/** WebP, extended format (VP8X) with its canvas size. */
export function webp(width: number, height: number, size = 64): Uint8Array {
  const enc = (t: string) => [...new TextEncoder().encode(t)];
  return padded([...enc("RIFF"), ...le32(size - 8), ...enc("WEBP"), ...enc("VP8X"), ...le32(10), 0, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)], size);
}

export function ogg(size = 64): Uint8Array {
  return padded([...new TextEncoder().encode("OggS"), 0, 2], size);
}

export function mp3(size = 64): Uint8Array {
  return padded([...new TextEncoder().encode("ID3"), 4, 0, 0, 0, 0, 0, 0], size);
}

/** WAV of `seconds` of 8 kHz 8-bit mono silence (8000 bytes a second). */
export function wav(seconds: number): Uint8Array {
  const enc = (t: string) => [...new TextEncoder().encode(t)];
  const dataBytes = Math.round(seconds * 8000);
  const head = [...enc("RIFF"), ...le32(36 + dataBytes), ...enc("WAVE"), ...enc("fmt "), ...le32(16), ...le16(1), ...le16(1), ...le32(8000), ...le32(8000), ...le16(1), ...le16(8), ...enc("data"), ...le32(dataBytes)];
  return padded(head, head.length + dataBytes);
}

export function m4a(size = 64): Uint8Array {
  return padded([...be32(24), ...new TextEncoder().encode("ftypM4A "), 0, 0, 0, 0], size);
}
