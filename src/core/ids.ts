/** Random identifiers: a short readable prefix plus 16 random bytes in base32-ish hex. */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `${prefix}_${Buffer.from(bytes).toString("hex")}`;
}

export function sha256Hex(data: string | Uint8Array | ArrayBuffer): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
