/** Random identifiers: a short readable prefix plus 16 random bytes in base32-ish hex. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** `<prefix>_` and 20 random hex digits (80 bits from the CSPRNG). */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let id = `${prefix}_`;
  for (let i = 0; i < bytes.length; i++) id += HEX[bytes[i]!];
  return id;
}

export function sha256Hex(data: string | Uint8Array | ArrayBuffer): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
