import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../../src/core/logger.ts";
import { BACKGROUND_TIMERS } from "../../../src/core/timers.ts";
import { CronScheduler, type CronTimers } from "../../../src/plugins/cron/index.ts";
import { SqliteCronStateStore } from "../../../src/storage/index.ts";
import { EVENT_QUEUE_CAPACITY, EventBus, startPump } from "../../../src/plugins/events/index.ts";
import type { BenchRow, BenchSuite } from "../types.ts";

const quiet: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => quiet,
};

const rssMb = () => process.memoryUsage().rss / (1024 * 1024);

/** Publish rate with one subscriber that never drains, and the memory that costs. */
function publishStalled(): BenchRow[] {
  const bus = new EventBus({ logger: quiet });
  const stalled = bus.subscribe("prx.bench.*", { name: "stalled" });
  const payload = { turn: 1, text: "hello world", ok: true };
  for (let i = 0; i < 200_000; i++) bus.publish("prx.bench.tick", payload);
  Bun.gc(true);
  const before = rssMb();
  const total = 2_000_000;
  const started = performance.now();
  for (let i = 0; i < total; i++) bus.publish("prx.bench.tick", payload);
  const seconds = (performance.now() - started) / 1000;
  Bun.gc(true);
  const after = rssMb();
  const stats = stalled.stats();
  stalled.close();
  return [
    {
      suite: "events",
      name: "publish rate, one stalled subscriber",
      value: Math.round(total / seconds),
      unit: "ops/s",
      target: { op: ">=", value: 1_000_000 },
      note: `queue held at ${stats.queued}/${EVENT_QUEUE_CAPACITY}, ${stats.dropped} dropped`,
    },
    {
      suite: "events",
      name: "RSS growth over 2M publishes, one stalled subscriber",
      value: Math.round(Math.max(0, after - before) * 10) / 10,
      unit: "MB",
      target: { op: "<=", value: 16 },
    },
  ];
}

/** Events per second through a pump whose delivery does nothing (the per-event cost of a hook pump). */
async function pumpRate(): Promise<BenchRow> {
  const bus = new EventBus({ logger: quiet });
  let delivered = 0;
  const subscription = bus.subscribe("prx.bench.*");
  const pump = startPump(
    subscription,
    async () => {
      delivered++;
    },
    { logger: quiet },
  );
  const total = 200_000;
  const started = performance.now();
  for (let sent = 0; sent < total;) {
    for (let i = 0; i < 512 && sent < total; i++, sent++) bus.publish("prx.bench.tick", sent);
    await Bun.sleep(0);
  }
  while (delivered + subscription.stats().dropped < total) await Bun.sleep(0);
  const seconds = (performance.now() - started) / 1000;
  const dropped = subscription.stats().dropped;
  await pump.stop();
  return {
    suite: "events",
    name: "pump delivery rate (no-op deliver)",
    value: Math.round(delivered / seconds),
    unit: "ops/s",
    note: `${dropped} dropped while publishing in batches of 512`,
  };
}

/**
 * CPU used by an idle scheduler with 50 jobs over ~3 s: one timer to the next slot, no polling. Measured first in the
 * suite and after a full collection, so that the window does not carry the other measures' garbage (the collector's
 * sweeping and the allocator returning their pages to the system). The timers the scheduler arms and that fire inside
 * the window are counted through its clock: an idle scheduler arms none.
 */
async function cronIdle(tmp: string): Promise<BenchRow[]> {
  const db = new Database(join(tmp, "cron.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  const timers = { armed: 0, fired: 0 };
  const clock: CronTimers = {
    dateNow: BACKGROUND_TIMERS.dateNow,
    after(fn, delayMs) {
      timers.armed++;
      return BACKGROUND_TIMERS.after(() => {
        timers.fired++;
        fn();
      }, delayMs);
    },
  };
  const scheduler = new CronScheduler({ store: new SqliteCronStateStore(db), logger: quiet, clock });
  scheduler.setJobs(
    Array.from({ length: 50 }, (_, i) => ({
      id: `bench/job${i}`,
      schedule: `${i % 60} ${i % 24} * * *`,
      run: async () => "",
    })),
  );
  scheduler.start();
  await scheduler.idle();
  Bun.gc(true);
  await Bun.sleep(500);
  const armedBefore = timers.armed;
  const firedBefore = timers.fired;
  const wallStart = performance.now();
  const cpu = process.cpuUsage();
  await Bun.sleep(3000);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wallStart;
  const armed = timers.armed - armedBefore;
  const fired = timers.fired - firedBefore;
  await scheduler.stop();
  db.close();
  const cpuMs = (used.user + used.system) / 1000;
  return [
    {
      suite: "events",
      name: "cron scheduler idle CPU, 50 jobs, 3 s",
      value: Math.round((cpuMs / wallMs) * 100 * 1000) / 1000,
      unit: "%",
      target: { op: "<=", value: 1 },
      note: `${cpuMs.toFixed(1)} ms CPU in ${Math.round(wallMs)} ms (whole process); in the window the scheduler armed ${armed} and fired ${fired} timers`,
    },
  ];
}

const suite: BenchSuite = async (ctx) => {
  // the idle measure first: the publish measures leave garbage whose collection would land in its window
  const rows = await cronIdle(ctx.tmp);
  rows.push(...publishStalled());
  rows.push(await pumpRate());
  return rows;
};

export default suite;
