import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteStorage } from "../../src/storage/index.ts";
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
  async cleanup() {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  },
});
