import { constantTimeEqual } from "../../core/constant-time.ts";
import type { SQL } from "bun";
import { errorMessage } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ids.ts";
import { createLogger } from "../../core/logger.ts";
import { BEARER_MAX_CHARS, TOKEN_CACHE_MAX_ENTRIES, TOKEN_CACHE_TTL_MS, TOKEN_TOUCH_INTERVAL_MS } from "../limits.ts";
import { mintToken, toTokenRecord, unknownToken, type TokenRow } from "../token-util.ts";
import type { TokenRecord, TokenStore } from "../types.ts";
import { pg } from "./connect.ts";

const log = createLogger("storage.tokens");

/**
 * Gateway bearer tokens in PostgreSQL (only their SHA-256). A verified token is trusted for TOKEN_CACHE_TTL_MS
 * without a query, so a revocation through any replica is honoured within that time; a revocation through this
 * store drops the cache at once. Concurrent requests with the same token wait for one lookup.
 */
export class PgTokenStore implements TokenStore {
  private readonly touched = new Map<string, number>();
  private readonly verified = new Map<string, { row: TokenRow; at: number }>();
  /** Lookups on their way, by digest: the requests that find the cached entry expired together share one query. */
  private readonly looking = new Map<string, Promise<TokenRecord | null>>();
  /** Revocations through this store: a lookup that began before one is answered but not cached. */
  private revocations = 0;

  constructor(
    private readonly sql: SQL,
    private readonly now: () => number = Date.now,
  ) {}

  async create(name: string): Promise<{ token: string; record: TokenRecord }> {
    const minted = mintToken(name, this.now());
    const { record } = minted;
    await pg("token create", () =>
      this.sql.unsafe("INSERT INTO gateway_tokens (id, name, token_sha256, created_at) VALUES ($1, $2, $3, $4)", [
        record.id,
        record.name,
        sha256Hex(minted.token),
        record.created_at,
      ]),
    );
    return minted;
  }

  list(): Promise<TokenRecord[]> {
    return pg("token list", async () =>
      ((await this.sql.unsafe("SELECT * FROM gateway_tokens ORDER BY created_at, id")) as TokenRow[]).map(toTokenRecord),
    );
  }

  async revoke(id: string): Promise<boolean> {
    const rows = (await pg("token revoke", () =>
      this.sql.unsafe(
        "UPDATE gateway_tokens t SET revoked = true FROM gateway_tokens old WHERE t.id = old.id AND t.id = $1 RETURNING old.revoked AS was",
        [id],
      ),
    )) as Array<{ was: boolean }>;
    if (rows.length === 0) throw unknownToken(id);
    this.verified.clear();
    this.looking.clear();
    this.revocations++;
    return !rows[0]!.was;
  }

  get cachedCount(): number {
    return this.verified.size;
  }

  activeCount(): Promise<number> {
    return pg("token count", async () => (await this.sql.unsafe("SELECT COUNT(*)::int AS n FROM gateway_tokens WHERE NOT revoked"))[0].n);
  }

  verify(presented: string): TokenRecord | null | Promise<TokenRecord | null> {
    if (presented.length === 0 || presented.length > BEARER_MAX_CHARS) return null;
    const digest = Bun.SHA256.hash(presented, "hex");
    const now = this.now();
    const cached = this.verified.get(digest);
    if (cached && now - cached.at < TOKEN_CACHE_TTL_MS && now >= cached.at) {
      this.touch(cached.row.id, now);
      return toTokenRecord(cached.row);
    }
    const pending = this.looking.get(digest);
    if (pending) return pending;
    const lookup = this.lookup(digest, now).finally(() => {
      if (this.looking.get(digest) === lookup) this.looking.delete(digest);
    });
    this.looking.set(digest, lookup);
    return lookup;
  }

  private async lookup(digest: string, now: number): Promise<TokenRecord | null> {
    const revocations = this.revocations;
    const rows = (await pg("token verify", () =>
      this.sql.unsafe("SELECT * FROM gateway_tokens WHERE token_sha256 = $1", [digest]),
    )) as TokenRow[];
    const row = rows[0];
    if (!row || !constantTimeEqual(row.token_sha256, digest) || row.revoked) {
      this.verified.delete(digest);
      return null;
    }
    if (this.verified.size >= TOKEN_CACHE_MAX_ENTRIES) this.verified.clear();
    if (revocations === this.revocations) this.verified.set(digest, { row, at: now });
    this.touch(row.id, now);
    return toTokenRecord(row);
  }

  /** `last_used_at`, written at most every TOKEN_TOUCH_INTERVAL_MS per token, in the background. */
  private touch(id: string, now: number): void {
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOKEN_TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    this.sql
      .unsafe("UPDATE gateway_tokens SET last_used_at = $1 WHERE id = $2", [new Date(now).toISOString(), id])
      .catch((error: unknown) => {
        // a lost last_used_at is not worth failing a request over; the next use writes it again
        this.touched.delete(id);
        log.warn("token last_used_at not recorded", { token: id, error: errorMessage(error) });
      });
  }
}
