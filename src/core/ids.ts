/** Random identifiers: a short readable prefix plus random bytes in hex. */

/** `<prefix>_` and 20 random hex digits (80 bits from the CSPRNG). */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.getRandomValues(new Uint8Array(10)).toHex()}`;
}

export function sha256Hex(data: string | Uint8Array | ArrayBuffer): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
