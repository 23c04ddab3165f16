import type { SQL } from "bun";
import type { ResponseStore, StoredResponse } from "../types.ts";
import { pg } from "./connect.ts";

interface Row {
  id: string;
  scope: string;
  created_at: string | number;
  response: string;
  input_items: string;
  context: string;
}

/** Stored Responses API answers in PostgreSQL, shared by replicas, each readable only by the credential that made it. */
export class PgResponseStore implements ResponseStore {
  constructor(private readonly sql: SQL) {}

  async put(record: StoredResponse): Promise<void> {
    await pg("response store", () =>
      this.sql.unsafe(
        "INSERT INTO gateway_responses (id, scope, created_at, response, input_items, context) VALUES ($1, $2, $3, $4, $5, $6)",
        [record.id, record.scope, record.createdAt, record.response, record.inputItems, record.context],
      ),
    );
  }

  async get(scope: string, id: string): Promise<StoredResponse | null> {
    const rows = (await pg("response read", () =>
      this.sql.unsafe("SELECT * FROM gateway_responses WHERE id = $1 AND scope = $2", [id, scope]),
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
}
