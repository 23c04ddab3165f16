// UTF-8 for plugin code: QuickJS, the engine of plugins built by `prx plugins build`, has no TextEncoder. Lone
// surrogates are encoded as U+FFFD, and malformed bytes decode to U+FFFD, as TextEncoder and TextDecoder do.

/** The UTF-8 bytes of a string. */
export function encode(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(out);
}

/** The string of UTF-8 bytes (a plain array of byte values works too). */
export function decode(bytes: Uint8Array | readonly number[]): string {
  let out = "";
  let i = 0;
  const at = (k: number): number => bytes[k] ?? 0;
  const cont = (k: number): boolean => k < bytes.length && (at(k) & 0xc0) === 0x80;
  while (i < bytes.length) {
    const b = at(i);
    let c = 0xfffd;
    let n = 1;
    if (b < 0x80) c = b;
    else if (b >= 0xc2 && b < 0xe0 && cont(i + 1)) [c, n] = [((b & 31) << 6) | (at(i + 1) & 63), 2];
    else if (b >= 0xe0 && b < 0xf0 && cont(i + 1) && cont(i + 2)) {
      const v = ((b & 15) << 12) | ((at(i + 1) & 63) << 6) | (at(i + 2) & 63);
      if (v >= 0x800 && (v < 0xd800 || v > 0xdfff)) [c, n] = [v, 3];
    } else if (b >= 0xf0 && b < 0xf5 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
      const v = ((b & 7) << 18) | ((at(i + 1) & 63) << 12) | ((at(i + 2) & 63) << 6) | (at(i + 3) & 63);
      if (v >= 0x10000 && v <= 0x10ffff) [c, n] = [v, 4];
    }
    out += String.fromCodePoint(c);
    i += n;
  }
  return out;
}
