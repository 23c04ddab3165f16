import { createHash } from "node:crypto";

/** Longest PostgreSQL identifier (a NOTIFY channel's name), in bytes. */
export const PG_CHANNEL_MAX_BYTES = 63;

/**
 * The NOTIFY channel of `kind` (a table's writes) in `schema`: channels are per database, so the schema is in the
 * name (hashed when the name would pass PG_CHANNEL_MAX_BYTES).
 */
export function pgChannel(kind: string, schema: string): string {
  const name = `prx_${kind}_${schema}`;
  if (Buffer.byteLength(name) <= PG_CHANNEL_MAX_BYTES) return name;
  return `prx_${kind}_${createHash("sha256").update(schema).digest("hex").slice(0, 32)}`;
}
