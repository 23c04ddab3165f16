import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteStorage } from "../../src/storage/index.ts";
import { ftsPhrase } from "../../src/storage/sqlite/fts.ts";
import { SQL } from "../../src/storage/sqlite/sessions.ts";
import { storeSuite } from "./suite.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-store-"));
let db: Database | null = null;

storeSuite({
  name: "sqlite",
  available: true,
  async open(clock) {
    db = new Database(join(dir, "prx.db"), { create: true, strict: true });
    db.exec("PRAGMA journal_mode = WAL");
    return sqliteStorage(db, { now: clock });
  },
  async exec(_s, statement) {
    db!.exec(statement);
  },
  async searchPlan(_s, text) {
    const plan = db!.query<{ detail: string }, [string, number, string]>(`EXPLAIN QUERY PLAN ${SQL.searchIndexed}`);
    return plan.all(`%${text}%`, 100, ftsPhrase(text)).map((row) => row.detail).join("\n");
  },
  searchIndex: "sessions_search VIRTUAL TABLE",
  async cleanup() {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  },
});
