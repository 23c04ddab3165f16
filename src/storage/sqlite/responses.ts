import type { Database } from "bun:sqlite";
import type { ResponseStore, StoredResponse } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

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

/** Stored Responses API answers in the workspace database, each readable only by the credential that made it. */
export class SqliteResponseStore implements ResponseStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  put(record: StoredResponse): void {
    this.db
      .query("INSERT INTO gateway_responses (id, scope, created_at, response, input_items, context) VALUES (?, ?, ?, ?, ?, ?)")
      .run(record.id, record.scope, record.createdAt, record.response, record.inputItems, record.context);
  }

  get(scope: string, id: string): StoredResponse | null {
    const row = this.db.query<Row, [string, string]>("SELECT * FROM gateway_responses WHERE id = ? AND scope = ?").get(id, scope);
    return row ? fromRow(row) : null;
  }

  delete(scope: string, id: string): boolean {
    return this.db.query("DELETE FROM gateway_responses WHERE id = ? AND scope = ?").run(id, scope).changes > 0;
  }
}
