import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { UsageRecorder, USAGE_PENDING_MAX_ROWS } from "../../src/agent/usage-recorder.ts";
import { sqliteStorage } from "../../src/storage/index.ts";
import type { MessageUsage } from "../../src/storage/types.ts";

const call: MessageUsage = { provider: "p", model: "m", input_tokens: 10, output_tokens: 2, cached_input_tokens: 4, cost_usd: 0.5 };
const charge = { day: "2030-06-01", channel: "gateway", sender: null };

function rowsWritten(db: Database): number {
  return db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n;
}

test("turns' usage is written in one batch of aggregated rows; budgets see what is pending", async () => {
  const db = new Database(":memory:");
  const storage = sqliteStorage(db);
  const recorder = new UsageRecorder(() => storage.usage, 60_000);
  for (let i = 0; i < 40; i++) recorder.count("s1", [call], charge);
  expect(storage.usage.totals("day", "2030-01-01")).toEqual([]);
  const spent = await recorder.spent([{ kind: "all", key: "" }], "2030-06-01", "2030-06-01");
  expect(spent.reduce((sum, row) => sum + row.cost_usd, 0)).toBe(20);
  const before = rowsWritten(db);
  expect((await recorder.totals("day", "2030-01-01"))[0]).toMatchObject({ input_tokens: 400, cached_input_tokens: 160, cost_usd: 20, calls: 40 });
  // everything, the channel, the model and the session: four rows for forty calls
  expect(rowsWritten(db) - before).toBe(4);
  // written once: the budget read no longer adds it twice
  expect((await recorder.spent([{ kind: "all", key: "" }], "2030-06-01", "2030-06-01")).map((row) => row.cost_usd)).toEqual([20]);
  await recorder.close();
  db.close();
});

test("a flush starts at once when USAGE_PENDING_MAX_ROWS rows are pending, not one row before", async () => {
  const db = new Database(":memory:");
  const storage = sqliteStorage(db);
  const recorder = new UsageRecorder(() => storage.usage, 60_000);
  // the first session's call pends four rows (all, channel, model, session), every other session one more
  const sessions = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
  for (const id of sessions(USAGE_PENDING_MAX_ROWS - 4)) recorder.count(id, [call], charge);
  await Bun.sleep(5);
  expect(storage.usage.totals("day", "2030-01-01")).toEqual([]);
  recorder.count("the-last", [call], charge);
  await Bun.sleep(5);
  expect(storage.usage.totals("day", "2030-01-01")[0]!.calls).toBe(USAGE_PENDING_MAX_ROWS - 3);
  await recorder.close();
  db.close();
});
