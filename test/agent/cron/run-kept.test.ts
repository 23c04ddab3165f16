/**
 * A delivered run stays in the run inbox CRON_RUN_KEPT_MS after it was stored, and is forgotten by the runner's start
 * once it is older: the store stamps the run on the storage's clock, the runner prunes on its own, both moved by the
 * test. On SQLite and on PostgreSQL.
 */
import { afterAll, expect, test } from "bun:test";
import { CRON_RUN_INBOX, CRON_RUN_KEPT_MS } from "../../../src/agent/cron/run-inbox.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { pgStorage } from "../../../src/storage/postgres/index.ts";
import type { BackendStorage } from "../../../src/storage/types.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../../helpers/servers.ts";
import { FakeClock } from "../../plugins/cron/fake-clock.ts";
import { advance, cronTool, parsed, telegramRunner, type Delivery } from "./harness.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
const RUN_AT = T0 + 2000;
const schemas: string[] = [];
const testWithPostgres = await testNeeding("postgres");
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

/**
 * An `at` reminder delivered at RUN_AT; whether its run is in the inbox after a start of the runner at
 * RUN_AT + CRON_RUN_KEPT_MS, then one a ms later.
 */
async function keptAfter(storage: BackendStorage, clock: FakeClock): Promise<{ at: boolean; past: boolean }> {
  const deliveries: Delivery[] = [];
  const job = parsed(
    await cronTool(storage, clock)({ action: "add", schedule: { kind: "at", at: new Date(RUN_AT).toISOString() }, payload: { kind: "systemEvent", text: "tea" } }),
  );
  const run = `${job.id}@${RUN_AT}`;
  const first = telegramRunner(storage, clock, "a", deliveries).runner;
  await first.start();
  await advance(clock, RUN_AT + 1000, [first]);
  await first.stop();
  expect(deliveries.map((d) => [d.text, d.at])).toEqual([["tea", RUN_AT]]);
  expect((await storage.channels.entry(CRON_RUN_INBOX, run))?.state).toBe("done");

  const startAt = async (ms: number) => {
    await clock.advanceTo(ms);
    const runner = telegramRunner(storage, clock, "a", deliveries).runner;
    await runner.start();
    await runner.stop();
    return (await storage.channels.entry(CRON_RUN_INBOX, run)) !== null;
  };
  return { at: await startAt(RUN_AT + CRON_RUN_KEPT_MS), past: await startAt(RUN_AT + CRON_RUN_KEPT_MS + 1) };
}

test(`SQLite: a run delivered at T is kept by a start at T + CRON_RUN_KEPT_MS, pruned by one at a ms later`, async () => {
  const clock = new FakeClock(T0);
  const storage = openSqliteStorage(":memory:", { now: () => clock.now() });
  try {
    expect(await keptAfter(storage, clock)).toEqual({ at: true, past: false });
  } finally {
    await storage.close();
  }
});

testWithPostgres(`PostgreSQL: a run delivered at T is kept by a start at T + CRON_RUN_KEPT_MS, pruned by one at a ms later`, async () => {
  const clock = new FakeClock(T0);
  const schema = uniqueSchema("cron_run_kept");
  schemas.push(schema);
  const storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2, now: () => clock.now() });
  try {
    expect(await keptAfter(storage, clock)).toEqual({ at: true, past: false });
  } finally {
    await storage.close();
  }
});
