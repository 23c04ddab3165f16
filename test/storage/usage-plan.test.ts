import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sqliteStorage } from "../../src/storage/index.ts";
import { spentSql, USAGE_SQL } from "../../src/storage/sqlite/usage.ts";

/** The SQLite plan of a statement, one line per step. */
function plan(db: Database, text: string, params: string[]): string {
  return db
    .query<{ detail: string }, string[]>(`EXPLAIN QUERY PLAN ${text}`)
    .all(...params)
    .map((row) => row.detail)
    .join("\n");
}

test("usage reads and the budget read search the kept totals by key and day, never scan them", () => {
  const db = new Database(":memory:");
  const storage = sqliteStorage(db);
  // a year and more of days, each with many sessions and models: 100,000 kept rows
  const insert = db.query("INSERT INTO usage_totals VALUES (?, ?, ?, 1, 1, 0, 0.001, 1)");
  db.transaction(() => {
    for (let d = 0; d < 400; d++) {
      const day = new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10);
      insert.run("all", "", day);
      for (let i = 0; i < 200; i++) insert.run("session", `s-${d}-${i}`, day);
      for (let i = 0; i < 49; i++) insert.run("model", `p/m${i}`, day);
    }
  })();
  db.exec("ANALYZE");
  const plans = [
    plan(db, USAGE_SQL.byDay, ["2026-01-01"]),
    plan(db, USAGE_SQL.byKey, ["session", "2026-01-20"]),
    plan(db, USAGE_SQL.session, ["s-3-1", "s-3-1"]),
    plan(db, spentSql(3), ["all", "", "channel", "telegram", "sender", "telegram:1", "2026-02-01", "2026-02-04"]),
  ];
  for (const text of plans) expect(text).not.toContain("SCAN usage_totals");
  expect(plans[0]).toContain("SEARCH usage_totals USING PRIMARY KEY (kind=? AND key=? AND day>?)");
  expect(plans[1]).toContain("SEARCH usage_totals USING INDEX usage_totals_day (kind=? AND day>?)");
  expect(plans[2]).toContain("SEARCH usage_totals USING PRIMARY KEY (kind=? AND key=?)");
  expect(plans[3]).toContain("(kind=? AND key=? AND day>? AND day<?)");
  expect(storage.usage.totals("day", "2026-02-03").map((row) => row.key)).toEqual(["2026-02-03", "2026-02-04"]);
  db.close();
});
