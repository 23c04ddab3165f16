import { constantTimeEqual } from "../../core/constant-time.ts";
import type { Database } from "bun:sqlite";
import { sha256Hex } from "../../core/ids.ts";
import { BEARER_MAX_CHARS, TOKEN_TOUCH_INTERVAL_MS } from "../limits.ts";
import { mintToken, toTokenRecord, unknownToken, type TokenRow } from "../token-util.ts";
import type { TokenRecord, TokenStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

/**
 * Gateway bearer tokens in the workspace database: only their SHA-256 is kept. Each request looks its token up by
 * digest (one indexed row, as cheap as asking SQLite whether anything changed), so a revocation by any process
 * takes effect at the next request.
 */
export class SqliteTokenStore implements TokenStore {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    migrateSqlite(db);
  }

  create(name: string): { token: string; record: TokenRecord } {
    const minted = mintToken(name, this.now());
    const { record } = minted;
    this.db
      .query("INSERT INTO gateway_tokens (id, name, token_sha256, created_at) VALUES (?, ?, ?, ?)")
      .run(record.id, record.name, sha256Hex(minted.token), record.created_at);
    return minted;
  }

  list(): TokenRecord[] {
    return this.db.query<TokenRow, []>("SELECT * FROM gateway_tokens ORDER BY created_at, id").all().map(toTokenRecord);
  }

  revoke(id: string): boolean {
    const row = this.db.query<TokenRow, [string]>("SELECT * FROM gateway_tokens WHERE id = ?").get(id);
    if (!row) throw unknownToken(id);
    if (row.revoked) return false;
    this.db.query("UPDATE gateway_tokens SET revoked = 1 WHERE id = ?").run(id);
    return true;
  }

  activeCount(): number {
    return this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM gateway_tokens WHERE revoked = 0").get()!.n;
  }

  verify(presented: string): TokenRecord | null {
    if (presented.length === 0 || presented.length > BEARER_MAX_CHARS) return null;
    const digest = Bun.SHA256.hash(presented, "hex");
    const row = statement<TokenRow, [string]>(this.db, "SELECT * FROM gateway_tokens WHERE token_sha256 = ?").get(digest);
    if (!row || !constantTimeEqual(row.token_sha256, digest) || row.revoked) return null;
    this.touch(row.id);
    return toTokenRecord(row);
  }

  private touch(id: string): void {
    const now = this.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOKEN_TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    statement(this.db, "UPDATE gateway_tokens SET last_used_at = ? WHERE id = ?").run(new Date(now).toISOString(), id);
  }
}
