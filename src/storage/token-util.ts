import { PrxError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { TOKEN_BYTES, TOKEN_NAME_MAX_CHARS } from "./limits.ts";
import type { TokenRecord } from "./types.ts";

export const TOKEN_PREFIX = "prx_";

export interface TokenRow {
  id: string;
  name: string;
  token_sha256: string;
  created_at: string;
  last_used_at: string | null;
  revoked: number | boolean;
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked === true || row.revoked === 1,
  };
}

/** A new token and its record (the caller stores the record with the token's SHA-256). */
export function mintToken(name: string, now: number): { token: string; record: TokenRecord } {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > TOKEN_NAME_MAX_CHARS) {
    throw new PrxError("USAGE", `token name must be 1-${TOKEN_NAME_MAX_CHARS} characters, got ${trimmed.length}`);
  }
  const token = TOKEN_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))).toString("base64url");
  const record: TokenRecord = {
    id: newId("tok"),
    name: trimmed,
    created_at: new Date(now).toISOString(),
    last_used_at: null,
    revoked: false,
  };
  return { token, record };
}

export function unknownToken(id: string): PrxError {
  return new PrxError("NOT_FOUND", `no gateway token with id "${id}"`, { hint: "list them with `prx gateway token list`" });
}
