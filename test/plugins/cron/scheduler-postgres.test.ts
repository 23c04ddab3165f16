/**
 * The cron scheduler on the PostgreSQL state store, as replicas use it: several schedulers fire each slot once, and
 * a run whose replica died (its lease not renewed) is taken over once the lease expires, with a new fence.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CronScheduler, type CronJob } from "../../../src/plugins/cron/index.ts";
import { pgStorage, type PgStorage } from "../../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../../helpers/servers.ts";
import { captureLogger } from "../events/log.ts";
import { FakeClock } from "./fake-clock.ts";

const T0 = Date.parse("2026-01-01T00:00:00.500Z");
const schema = uniqueSchema("cron");
let storage: PgStorage | null = null;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres === test) storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4 });
});
afterAll(async () => {
  await storage?.close();
  if (storage) await dropSchema(schema);
});

const it = (name: string, body: (s: PgStorage) => Promise<void>) => testWithPostgres(name, () => body(storage!));

function scheduler(s: PgStorage, clock: FakeClock, owner: string, leaseMs = 3000) {
  const logger = captureLogger();
  return { logger, scheduler: new CronScheduler({ store: s.cron, clock, utc: true, logger, owner, leaseMs }) };
}

/** Move a clock second by second, letting every scheduler finish its store calls at each step. */
async function advance(clock: FakeClock, to: number, schedulers: CronScheduler[]): Promise<void> {
  for (let t = clock.now() + 1000; t <= to; t += 1000) {
    await clock.advanceTo(t);
    await Promise.all(schedulers.map((s) => s.idle()));
  }
}

it("three schedulers sharing PostgreSQL fire each slot exactly once", async (s) => {
  const clock = new FakeClock(T0);
  const runs: string[] = [];
  const all = ["a", "b", "c"].map((owner) => scheduler(s, clock, owner).scheduler);
  for (const [i, one] of all.entries()) {
    const job: CronJob = { id: "p/every-second", schedule: "* * * * * *", run: async () => (runs.push(`${clock.now()}:${i}`), "ok") };
    one.setJobs([job]);
    one.start();
  }
  await Promise.all(all.map((one) => one.idle()));
  await advance(clock, T0 + 10_000, all);
  const slots = runs.map((r) => r.split(":")[0]);
  expect(new Set(slots).size).toBe(runs.length);
  expect(runs.length).toBe(10);
  expect((await s.cron.get("p/every-second"))!.fires).toBe(10);
  await Promise.all(all.map((one) => one.stop()));
});

it("a run whose replica stopped renewing its lease is taken over after it expires; the late finish writes nothing", async (s) => {
  const clockA = new FakeClock(T0);
  const clockB = new FakeClock(T0);
  let release!: () => void;
  const hung = new Promise<void>((resolve) => (release = resolve));
  const ran: string[] = [];
  const a = scheduler(s, clockA, "dead");
  const b = scheduler(s, clockB, "alive");
  a.scheduler.setJobs([{ id: "p/takeover", schedule: "*/10 * * * * *", run: async () => (await hung, ran.push("a"), "a") }]);
  b.scheduler.setJobs([{ id: "p/takeover", schedule: "*/10 * * * * *", run: async () => (ran.push("b"), "b") }]);
  a.scheduler.start();
  b.scheduler.start();
  await a.scheduler.idle();
  await b.scheduler.idle();
  // A reaches 00:00:10 first and claims it; its run hangs and its clock stops (as a killed process's would).
  await clockA.advanceTo(T0 + 9_600);
  await Bun.sleep(20);
  const claimed = (await s.cron.get("p/takeover"))!;
  expect(claimed.lease_owner).toBe("dead");
  // B finds the slot claimed and watches the lease; before it expires nothing happens, after it B runs the slot.
  await advance(clockB, T0 + 11_500, [b.scheduler]);
  expect(ran).toEqual([]);
  await advance(clockB, T0 + 13_500, [b.scheduler]);
  expect(ran).toEqual(["b"]);
  const taken = (await s.cron.get("p/takeover"))!;
  expect(taken.fence).toBe(claimed.fence + 1);
  expect(taken.lease_owner).toBeNull();
  expect(b.logger.records.some((r) => r.message.includes("taken over"))).toBe(true);
  // A comes back to life: its outcome is refused by the fence.
  release();
  await Bun.sleep(50);
  expect(a.logger.records.some((r) => r.message.includes("its lease was not renewed within 3000 ms and another process took the run over"))).toBe(true);
  expect((await s.cron.get("p/takeover"))!.fence).toBe(taken.fence);
  await b.scheduler.stop();
  await a.scheduler.stop();
});
