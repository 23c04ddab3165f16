import type { SQL } from "bun";
import { RESPONSES_PURGE_BATCH } from "../limits.ts";
import { oldestKeptSecond, purgeDue } from "../response-rules.ts";
import type { ResponseStore, StoredResponse } from "../types.ts";
import { pg } from "./connect.ts";
import { settingNow, type Setting } from "../../core/setting.ts";

interface Row {
  id: string;
  scope: string;
  created_at: string | number;
  response: string;
  input_items: string;
  context: string;
}

/**
 * Stored Responses API answers in PostgreSQL, shared by replicas, each readable only by the credential that made it,
 * for `ttlMs` after it was made: an older one is never read, and writes remove a bounded batch of them now and then.
 */
export class PgResponseStore implements ResponseStore {
  private lastPurge: number | undefined;

  constructor(
    private readonly sql: SQL,
    private readonly ttl: Setting<number>,
    private readonly now: () => number,
  ) {}

  async put(record: StoredResponse): Promise<void> {
    await pg("response store", () =>
      this.sql.unsafe(
        "INSERT INTO gateway_responses (id, scope, created_at, response, input_items, context) VALUES ($1, $2, $3, $4, $5, $6)",
        [record.id, record.scope, record.createdAt, record.response, record.inputItems, record.context],
      ),
    );
    await this.purgeExpired();
  }

  async get(scope: string, id: string): Promise<StoredResponse | null> {
    const rows = (await pg("response read", () =>
      this.sql.unsafe("SELECT * FROM gateway_responses WHERE id = $1 AND scope = $2 AND created_at >= $3", [
        id,
        scope,
        oldestKeptSecond(this.now(), settingNow(this.ttl)),
      ]),
    )) as Row[];
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      scope: row.scope,
      createdAt: Number(row.created_at),
      response: row.response,
      inputItems: row.input_items,
      context: row.context,
    };
  }

  async delete(scope: string, id: string): Promise<boolean> {
    const result = await pg("response delete", () =>
      this.sql.unsafe("DELETE FROM gateway_responses WHERE id = $1 AND scope = $2", [id, scope]),
    );
    return result.count > 0;
  }

  /** Remove up to RESPONSES_PURGE_BATCH expired responses, at most once per RESPONSES_PURGE_INTERVAL_MS; how many. */
  async purgeExpired(): Promise<number> {
    const now = this.now();
    if (!purgeDue(this.lastPurge, now)) return 0;
    this.lastPurge = now;
    const result = await pg("response cleanup", () =>
      this.sql.unsafe(
        "DELETE FROM gateway_responses WHERE id IN (SELECT id FROM gateway_responses WHERE created_at < $1 LIMIT $2)",
        [oldestKeptSecond(now, settingNow(this.ttl)), RESPONSES_PURGE_BATCH],
      ),
    );
    return result.count;
  }
}
