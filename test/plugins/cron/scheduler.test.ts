import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CRON_MAX_JOBS, CRON_PUBLISH_OUTPUT_MAX_CHARS, CronScheduler } from "../../../src/plugins/cron/index.ts";
import type { CronJob } from "../../../src/plugins/cron/index.ts";
import { EventBus } from "../../../src/plugins/events/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { SqliteCronStateStore } from "../../../src/storage/index.ts";
import { captureLogger } from "../events/log.ts";
import { FakeClock } from "./fake-clock.ts";

const T0 = Date.parse("2026-01-01T00:00:30Z");
const MIN = 60_000;
const dirs: string[] = [];
const dbs: Database[] = [];

function openDb(dir?: string): { db: Database; dir: string } {
  const d = dir ?? mkdtempSync(join(tmpdir(), "prx-cron-"));
  if (!dir) dirs.push(d);
  const db = new Database(join(d, "prx.db"), { create: true, strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  dbs.push(db);
  return { db, dir: d };
}

afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A job that records the clock time of each of its runs. */
function recorder(id: string, schedule: string, clock: FakeClock, runs: string[], tag = "") {
  return {
    id,
    schedule,
    run: async () => {
      runs.push(new Date(clock.now()).toISOString().slice(11, 19) + tag);
      return "done";
    },
  } satisfies CronJob;
}

function newScheduler(db: Database, clock: FakeClock, bus?: EventBus) {
  const logger = captureLogger();
  return { scheduler: new CronScheduler({ store: new SqliteCronStateStore(db), clock, utc: true, logger, bus }), logger };
}

describe("CronScheduler", () => {
  test("fires once per slot with a single timer armed, nothing owed before the first start", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const { scheduler } = newScheduler(db, clock);
    scheduler.setJobs([
      recorder("p/every-minute", "* * * * *", clock, runs),
      recorder("p/every-2", "*/2 * * * *", clock, []),
    ]);
    scheduler.start();
    await scheduler.idle();
    expect(runs).toEqual([]);
    expect(clock.pending()).toBe(1);
    await clock.advanceTo(T0 + 5 * MIN);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00", "00:02:00", "00:03:00", "00:04:00", "00:05:00"]);
    expect(clock.pending()).toBe(1);
    const status = scheduler.status().find((s) => s.id === "p/every-minute")!;
    expect(status).toMatchObject({ fired: 5, ok: 5, errors: 0, nextDue: "2026-01-01T00:06:00.000Z" });
    expect(scheduler.status().find((s) => s.id === "p/every-2")?.fired).toBe(2);
    await scheduler.stop();
    expect(clock.pending()).toBe(0);
  });

  test("a setJobs replacement (reload) neither repeats nor skips a slot", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const { scheduler } = newScheduler(db, clock);
    scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs, " gen1")]);
    scheduler.start();
    await clock.advanceTo(T0 + 2 * MIN - 30_000); // exactly 00:02:00
    await scheduler.idle();
    scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs, " gen2")]);
    await scheduler.idle();
    await clock.advanceTo(T0 + 4 * MIN);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00 gen1", "00:02:00 gen1", "00:03:00 gen2", "00:04:00 gen2"]);
    await scheduler.stop();
  });

  test("a restart (new scheduler on the same db) fires each slot once; missed slots fire once, coalesced", async () => {
    const { db, dir } = openDb();
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const bus = new EventBus({ logger: captureLogger() });
    const results = bus.subscribe("prx.cron.*");
    const first = newScheduler(db, clock, bus).scheduler;
    first.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    first.start();
    await clock.advanceTo(T0 + 2 * MIN); // 00:02:30
    await first.stop();
    db.close();

    // Same minute: nothing owed.
    const db2 = openDb(dir).db;
    const second = newScheduler(db2, clock, bus);
    second.scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    second.scheduler.start();
    await second.scheduler.idle();
    expect(runs).toEqual(["00:01:00", "00:02:00"]);
    await second.scheduler.stop();

    // Down from 00:02:30 to 00:06:10: slots 03, 04, 05, 06 were missed -> one run for 00:06, logged.
    await clock.advanceTo(T0 + 5 * MIN + 40_000);
    const third = newScheduler(db2, clock, bus);
    third.scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    third.scheduler.start();
    await third.scheduler.idle();
    expect(runs).toEqual(["00:01:00", "00:02:00", "00:06:10"]);
    const log = third.logger.records.find((r) => r.message.includes("missed"));
    expect(log?.fields).toMatchObject({ job: "p/j", missed: 4, slot: "2026-01-01T00:06:00.000Z" });
    await clock.advanceTo(T0 + 7 * MIN);
    await third.scheduler.idle();
    expect(runs).toEqual(["00:01:00", "00:02:00", "00:06:10", "00:07:00"]);
    await third.scheduler.stop();

    const published = [];
    for (let e = results.tryNext(); e; e = results.tryNext()) published.push(e.payload);
    expect(published.map((p) => (p as { slot: string }).slot)).toEqual([
      "2026-01-01T00:01:00.000Z",
      "2026-01-01T00:02:00.000Z",
      "2026-01-01T00:06:00.000Z",
      "2026-01-01T00:07:00.000Z",
    ]);
    expect(published[2]).toEqual({
      job: "p/j",
      slot: "2026-01-01T00:06:00.000Z",
      ok: true,
      output: "done",
      coalesced: 4,
    });
  });

  test("two schedulers sharing one database fire each slot once", async () => {
    const { db, dir } = openDb();
    const other = openDb(dir).db;
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const a = newScheduler(db, clock).scheduler;
    const b = newScheduler(other, clock).scheduler;
    a.setJobs([recorder("p/j", "*/20 * * * * *", clock, runs, " a")]);
    b.setJobs([recorder("p/j", "*/20 * * * * *", clock, runs, " b")]);
    a.start();
    b.start();
    await clock.advanceTo(T0 + 2 * MIN);
    await Promise.all([a.idle(), b.idle()]);
    const slots = runs.map((r) => r.slice(0, 8));
    expect(slots).toEqual(["00:00:40", "00:01:00", "00:01:20", "00:01:40", "00:02:00", "00:02:20"]);
    expect(a.status()[0]!.fired + b.status()[0]!.fired).toBe(6);
    await Promise.all([a.stop(), b.stop()]);
  });

  test("results and errors are counted and published as prx.cron.<plugin>", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const bus = new EventBus({ logger: captureLogger() });
    const sub = bus.subscribe("prx.cron.backup");
    const { scheduler, logger } = newScheduler(db, clock, bus);
    let n = 0;
    scheduler.setJobs([
      {
        id: "backup/nightly",
        schedule: "* * * * *",
        run: async () => {
          if (++n === 2) throw new Error("disk full");
          return `ok ${n}`;
        },
      },
    ]);
    scheduler.start();
    await clock.advanceTo(T0 + 2 * MIN);
    await scheduler.idle();
    expect((await sub.next())?.payload).toEqual({
      job: "backup/nightly",
      slot: "2026-01-01T00:01:00.000Z",
      ok: true,
      output: "ok 1",
    });
    expect((await sub.next())?.payload).toEqual({
      job: "backup/nightly",
      slot: "2026-01-01T00:02:00.000Z",
      ok: false,
      error: "disk full",
    });
    expect(scheduler.status()[0]).toMatchObject({ fired: 2, ok: 1, errors: 1, lastError: { message: "disk full" } });
    expect(logger.records.some((r) => r.level === "warn" && r.message === "cron job failed")).toBe(true);
    const row = db.query("SELECT fires, last_ok, last_error FROM cron_state WHERE job_id = ?").get("backup/nightly");
    expect(row).toEqual({ fires: 2, last_ok: 0, last_error: "disk full" });
    await scheduler.stop();
  });

  test("runs never overlap: a slot due while the previous run is in progress is reported, not run", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const bus = new EventBus({ logger: captureLogger() });
    const sub = bus.subscribe("prx.cron.*");
    const { scheduler } = newScheduler(db, clock, bus);
    let release!: () => void;
    let calls = 0;
    scheduler.setJobs([
      {
        id: "p/slow",
        schedule: "* * * * *",
        run: () => (calls++, new Promise<string>((r) => (release = () => r("late")))),
      },
    ]);
    scheduler.start();
    await clock.advanceTo(T0 + 2 * MIN);
    expect(calls).toBe(1);
    expect(scheduler.status()[0]).toMatchObject({ running: true, skipped: 1 });
    expect((await sub.next())?.payload).toMatchObject({
      slot: "2026-01-01T00:02:00.000Z",
      ok: false,
      error: expect.stringContaining("still in progress"),
    });
    release();
    await scheduler.idle();
    expect((await sub.next())?.payload).toMatchObject({ slot: "2026-01-01T00:01:00.000Z", ok: true, output: "late" });
    await scheduler.stop();
  });

  test("a run that outlasts its job's interval, in a process alone, is told its later slot was claimed, not that another process took it over", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const { scheduler, logger } = newScheduler(db, clock);
    let release!: () => void;
    scheduler.setJobs([{ id: "p/slow", schedule: "* * * * *", run: () => new Promise<string>((r) => (release = () => r("late"))) }]);
    scheduler.start();
    await clock.advanceTo(T0 + 2 * MIN);
    release();
    await scheduler.idle();
    const warnings = logger.records.filter((r) => r.message.startsWith("cron run lease lost") || r.message.startsWith("cron run outcome not recorded"));
    expect(warnings.map((r) => r.message.split(":")[0])).toEqual(["cron run lease lost", "cron run outcome not recorded"]);
    for (const { message } of warnings) {
      expect(message).toContain("the job's slot 2026-01-01T00:02:00.000Z was claimed while this run of 2026-01-01T00:01:00.000Z still went");
      expect(message).not.toContain("another process");
    }
    await scheduler.stop();
  });

  test("a run past its timeout is recorded as failed", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const { scheduler } = newScheduler(db, clock);
    scheduler.setJobs([
      { id: "p/hang", schedule: "* * * * *", timeoutMs: 10, run: () => new Promise<string>(() => {}) },
    ]);
    scheduler.start();
    await clock.advanceTo(T0 + MIN);
    await scheduler.idle();
    expect(scheduler.status()[0]).toMatchObject({ errors: 1, running: false });
    expect(scheduler.status()[0]!.lastError?.message).toContain("did not finish within 10 ms");
    await scheduler.stop();
  });

  test("a changed schedule or a re-added job restarts from now without catch-up", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const { scheduler, logger } = newScheduler(db, clock);
    scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    scheduler.start();
    await clock.advanceTo(T0 + MIN);
    await scheduler.idle();
    scheduler.setJobs([]);
    await clock.advanceTo(T0 + 5 * MIN);
    scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00"]);
    scheduler.setJobs([recorder("p/j", "*/2 * * * *", clock, runs)]);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00"]);
    await clock.advanceTo(T0 + 6 * MIN);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00", "00:06:00"]);
    expect(logger.records.filter((r) => r.message.includes("restarts from now"))).toHaveLength(2);
    await scheduler.stop();
  });

  test("an invalid job set is refused as a whole and the running set is kept", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const runs: string[] = [];
    const { scheduler } = newScheduler(db, clock);
    scheduler.setJobs([recorder("p/j", "* * * * *", clock, runs)]);
    scheduler.start();
    for (const jobs of [
      [recorder("p/j", "* * * * *", clock, runs), recorder("p/bad", "99 * * * *", clock, runs)],
      [recorder("noslash", "* * * * *", clock, runs)],
      [recorder("p/x", "* * * * *", clock, runs), recorder("p/x", "* * * * *", clock, runs)],
    ]) {
      expect(() => scheduler.setJobs(jobs)).toThrow();
    }
    expect(scheduler.status().map((s) => s.id)).toEqual(["p/j"]);
    await clock.advanceTo(T0 + MIN);
    await scheduler.idle();
    expect(runs).toEqual(["00:01:00"]);
    await scheduler.stop();
  });

  test("runNow runs the current job outside its schedule", async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const { scheduler } = newScheduler(db, clock);
    scheduler.setJobs([{ id: "p/j", schedule: "@yearly", run: async () => "probe" }]);
    expect(await scheduler.runNow("p/j")).toMatchObject({ job: "p/j", slot: null, ok: true, output: "probe" });
    expect(scheduler.status()[0]?.fired).toBe(1);
    try {
      await scheduler.runNow("p/missing");
      throw new Error("ran");
    } catch (error) {
      expect(isPrxError(error, "PLUGIN_NOT_FOUND")).toBe(true);
    }
  });

  test(`${CRON_MAX_JOBS} jobs are accepted, one more is refused`, () => {
    const db = new Database(":memory:");
    dbs.push(db);
    const clock = new FakeClock(T0);
    const { scheduler } = newScheduler(db, clock);
    const jobs = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `p/j${i}`, schedule: "@daily", run: async () => "" }));
    db.exec("BEGIN");
    scheduler.setJobs(jobs(CRON_MAX_JOBS));
    db.exec("COMMIT");
    expect(() => scheduler.setJobs(jobs(CRON_MAX_JOBS + 1))).toThrow(/at most 1024/);
    expect(scheduler.status()).toHaveLength(CRON_MAX_JOBS);
  });
});

describe("published cron results", () => {
  test(`output up to ${CRON_PUBLISH_OUTPUT_MAX_CHARS} characters is published whole, longer output is cut`, async () => {
    const { db } = openDb();
    const clock = new FakeClock(T0);
    const bus = new EventBus({ logger: captureLogger() });
    const sub = bus.subscribe("prx.cron.big");
    const { scheduler } = newScheduler(db, clock, bus);
    scheduler.setJobs([
      { id: "big/edge", schedule: "@yearly", run: async () => "x".repeat(CRON_PUBLISH_OUTPUT_MAX_CHARS) },
      { id: "big/past", schedule: "@yearly", run: async () => "y".repeat(CRON_PUBLISH_OUTPUT_MAX_CHARS + 1) },
    ]);
    const edge = await scheduler.runNow("big/edge");
    const past = await scheduler.runNow("big/past");
    expect(edge.output).toHaveLength(CRON_PUBLISH_OUTPUT_MAX_CHARS);
    expect(past.output).toHaveLength(CRON_PUBLISH_OUTPUT_MAX_CHARS + 1);
    const first = (await sub.next())?.payload as { output: string; truncated?: boolean };
    const second = (await sub.next())?.payload as { output: string; truncated?: boolean };
    expect([first.output.length, first.truncated]).toEqual([CRON_PUBLISH_OUTPUT_MAX_CHARS, undefined]);
    expect([second.output.length, second.truncated]).toEqual([CRON_PUBLISH_OUTPUT_MAX_CHARS, true]);
  });
});
