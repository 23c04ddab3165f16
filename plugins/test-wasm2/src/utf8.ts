// UTF-8 helpers for kv values (bundled into each TypeScript plugin by build.ts; QuickJS has no TextEncoder).
export function toBytes(text: string): Uint8Array {
  const binary = unescape(encodeURIComponent(text));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function fromBytes(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return decodeURIComponent(escape(binary));
}
