import type { Database } from "bun:sqlite";
import { RESPONSES_PURGE_BATCH } from "../limits.ts";
import { oldestKeptSecond, purgeDue } from "../response-rules.ts";
import type { ResponseStore, StoredResponse } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { settingNow, type Setting } from "../../core/setting.ts";
import { statement } from "./statements.ts";

const SQL = {
  put: "INSERT INTO gateway_responses (id, scope, created_at, response, input_items, context) VALUES (?, ?, ?, ?, ?, ?)",
  get: "SELECT * FROM gateway_responses WHERE id = ? AND scope = ? AND created_at >= ?",
  purge: "DELETE FROM gateway_responses WHERE rowid IN (SELECT rowid FROM gateway_responses WHERE created_at < ? LIMIT ?)",
} as const;

interface Row {
  id: string;
  scope: string;
  created_at: number;
  response: string;
  input_items: string;
  context: string;
}

const fromRow = (row: Row): StoredResponse => ({
  id: row.id,
  scope: row.scope,
  createdAt: row.created_at,
  response: row.response,
  inputItems: row.input_items,
  context: row.context,
});

/**
 * Stored Responses API answers in the workspace database, each readable only by the credential that made it, for
 * `ttlMs` after it was made: an older one is never read, and writes remove a bounded batch of them now and then.
 */
export class SqliteResponseStore implements ResponseStore {
  private lastPurge: number | undefined;

  constructor(
    private readonly db: Database,
    private readonly ttl: Setting<number>,
    private readonly now: () => number,
  ) {
    migrateSqlite(db);
  }

  put(record: StoredResponse): void {
    statement(this.db, SQL.put).run(record.id, record.scope, record.createdAt, record.response, record.inputItems, record.context);
    this.purgeExpired();
  }

  get(scope: string, id: string): StoredResponse | null {
    const row = statement<Row, [string, string, number]>(this.db, SQL.get).get(id, scope, oldestKeptSecond(this.now(), settingNow(this.ttl)));
    return row ? fromRow(row) : null;
  }

  delete(scope: string, id: string): boolean {
    return this.db.query("DELETE FROM gateway_responses WHERE id = ? AND scope = ?").run(id, scope).changes > 0;
  }

  /** Remove up to RESPONSES_PURGE_BATCH expired responses, at most once per RESPONSES_PURGE_INTERVAL_MS; how many. */
  purgeExpired(): number {
    const now = this.now();
    if (!purgeDue(this.lastPurge, now)) return 0;
    this.lastPurge = now;
    return statement(this.db, SQL.purge).run(oldestKeptSecond(now, settingNow(this.ttl)), RESPONSES_PURGE_BATCH).changes;
  }
}
