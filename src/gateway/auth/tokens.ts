import type { Database } from "bun:sqlite";
import { ensureSchema } from "../../core/database.ts";
import { changeStamp, noteLocalWrite } from "../../core/data-version.ts";
import { PrxError } from "../../core/errors.ts";
import { newId, sha256Hex } from "../../core/ids.ts";
import { BEARER_MAX_CHARS, TOKEN_BYTES, TOKEN_NAME_MAX_CHARS, TOKEN_TOUCH_INTERVAL_MS } from "../limits.ts";

/** A bearer token as listed; the token itself is shown once at creation and never stored. */
export interface TokenRecord {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}

export const TOKEN_PREFIX = "prx_";

const TOKENS_TABLE = "gateway_tokens";

const DDL = `
CREATE TABLE IF NOT EXISTS gateway_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked INTEGER NOT NULL DEFAULT 0
);`;

interface Row {
  id: string;
  name: string;
  token_sha256: string;
  created_at: string;
  last_used_at: string | null;
  revoked: number;
}

function toRecord(row: Row): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked: row.revoked !== 0,
  };
}

/**
 * Constant-time equality of two hex digests (every character is compared whatever differs): what
 * crypto.timingSafeEqual does, without decoding both into Buffers on every request.
 */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Verified tokens remembered per process (by SHA-256), dropped whenever the database changes. */
export const TOKEN_CACHE_MAX_ENTRIES = 1024;

/**
 * Gateway bearer tokens in the workspace database: only their SHA-256 is kept. Verified tokens are cached by
 * digest and the cache is dropped when another connection (`prx gateway token revoke` in another process)
 * committed, or when a store on this connection revoked one (core/data-version.ts): a revocation takes effect
 * within DATA_VERSION_REUSE_MS, and a request costs no table lookup.
 */
export class TokenStore {
  private readonly touched = new Map<string, number>();
  private readonly verified = new Map<string, Row>();
  private stamp = "";

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    ensureSchema(db, "gateway_tokens", DDL);
  }

  create(name: string): { token: string; record: TokenRecord } {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > TOKEN_NAME_MAX_CHARS) {
      throw new PrxError("USAGE", `token name must be 1-${TOKEN_NAME_MAX_CHARS} characters, got ${trimmed.length}`);
    }
    const token = TOKEN_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES))).toString("base64url");
    const record: TokenRecord = {
      id: newId("tok"),
      name: trimmed,
      created_at: new Date(this.now()).toISOString(),
      last_used_at: null,
      revoked: false,
    };
    this.db
      .query("INSERT INTO gateway_tokens (id, name, token_sha256, created_at) VALUES (?, ?, ?, ?)")
      .run(record.id, record.name, sha256Hex(token), record.created_at);
    return { token, record };
  }

  list(): TokenRecord[] {
    return this.db.query<Row, []>("SELECT * FROM gateway_tokens ORDER BY created_at, id").all().map(toRecord);
  }

  /** True when a token was revoked now; false when it was already revoked. Unknown ids are an error. */
  revoke(id: string): boolean {
    const row = this.db.query<Row, [string]>("SELECT * FROM gateway_tokens WHERE id = ?").get(id);
    if (!row)
      throw new PrxError("NOT_FOUND", `no gateway token with id "${id}"`, {
        hint: "list them with `prx gateway token list`",
      });
    if (row.revoked) return false;
    this.db.query("UPDATE gateway_tokens SET revoked = 1 WHERE id = ?").run(id);
    noteLocalWrite(this.db, TOKENS_TABLE);
    return true;
  }

  /** Verified tokens held in the cache now (at most TOKEN_CACHE_MAX_ENTRIES). */
  get cachedCount(): number {
    return this.verified.size;
  }

  activeCount(): number {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM gateway_tokens WHERE revoked = 0").get()!.n;
  }

  /** The live token matching `presented`, or null. Another process's revocation counts within DATA_VERSION_REUSE_MS. */
  verify(presented: string): TokenRecord | null {
    if (presented.length === 0 || presented.length > BEARER_MAX_CHARS) return null;
    const digest = Bun.SHA256.hash(presented, "hex");
    const stamp = changeStamp(this.db, TOKENS_TABLE);
    if (stamp !== this.stamp) {
      this.verified.clear();
      this.stamp = stamp;
    }
    let row = this.verified.get(digest) ?? null;
    if (!row) {
      row = this.db.query<Row, [string]>("SELECT * FROM gateway_tokens WHERE token_sha256 = ?").get(digest);
      if (!row || !sameHex(row.token_sha256, digest) || row.revoked) return null;
      if (this.verified.size >= TOKEN_CACHE_MAX_ENTRIES) this.verified.clear();
      this.verified.set(digest, row);
    }
    this.touch(row.id);
    return toRecord(row);
  }

  private touch(id: string): void {
    const now = this.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOKEN_TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    this.db.query("UPDATE gateway_tokens SET last_used_at = ? WHERE id = ?").run(new Date(now).toISOString(), id);
  }
}
