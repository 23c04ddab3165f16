/** The workspace's database and private folders are readable by their owner only, as config.toml and logs are. */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWorkspace } from "../../src/core/workspace.ts";
import { openSqliteDatabase } from "../../src/storage/sqlite/database.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const root = () => {
  const dir = mkdtempSync(join(tmpdir(), "prx-modes-"));
  roots.push(dir);
  return join(dir, "ws");
};

describe("owner-only files", () => {
  test("a new workspace: data, cache and logs are 0700; the database and its WAL files 0600", () => {
    const ws = openWorkspace(root());
    for (const dir of ["data", "cache", "logs"]) expect([dir, mode(join(ws.root, dir))]).toEqual([dir, "700"]);
    const path = join(ws.root, "data", "prx.db");
    const db = openSqliteDatabase(path);
    db.exec("CREATE TABLE t (x)");
    db.exec("INSERT INTO t VALUES (1)");
    expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual(["600", "600", "600"]);
    db.close();
  });

  test("a workspace an older prx made 0755 / 0644 is tightened when opened", () => {
    const dir = root();
    mkdirSync(join(dir, "data"), { recursive: true, mode: 0o755 });
    chmodSync(join(dir, "data"), 0o755);
    const path = join(dir, "data", "prx.db");
    writeFileSync(path, "");
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, "");
    chmodSync(`${path}-wal`, 0o644);
    const ws = openWorkspace(dir);
    expect(mode(join(ws.root, "data"))).toBe("700");
    openSqliteDatabase(path).close();
    expect([mode(path), mode(`${path}-wal`)]).toEqual(["600", "600"]);
  });
});
