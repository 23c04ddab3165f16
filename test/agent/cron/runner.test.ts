/**
 * The cron tool's jobs on SQLite under a manual clock: an `at` reminder is delivered into its session and its chat
 * once and removed; `every` and `cron` jobs fire on their slots; a slot missed while no process ran fires once on
 * start within the grace and is recorded as missed past it; a manual run; an agentTurn's answer is delivered.
 */
import { afterEach, expect, test } from "bun:test";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/index.ts";
import { CRON_TOOL_MISSED_GRACE_MS, CRON_TOOL_RUN_DETAIL_CHARS } from "../../../src/tools/builtins/cron-limits.ts";
import { CRON_MAX_JOBS } from "../../../src/plugins/cron/index.ts";
import type { TurnInput } from "../../../src/agent/types.ts";
import { FakeClock } from "../../plugins/cron/fake-clock.ts";
import { advance, cronTool, parsed, telegramRunner, type Delivery } from "./harness.ts";
import type { CronJobRunner } from "../../../src/agent/cron/index.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
let storage: SqliteStorage;
const running: CronJobRunner[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  await storage.close();
});

function setup() {
  storage = openSqliteStorage(":memory:");
  const clock = new FakeClock(T0);
  const deliveries: Delivery[] = [];
  const turns: TurnInput[] = [];
  const start = async (owner = "a") => {
    const { runner, logger } = telegramRunner(storage, clock, owner, deliveries, turns);
    running.push(runner);
    await runner.start();
    return { runner, logger };
  };
  return { clock, deliveries, turns, cron: cronTool(storage, clock), start };
}

test("an at reminder two seconds ahead is delivered into its session and its chat once, then removed", async () => {
  const { clock, deliveries, cron, start } = setup();
  const added = parsed(
    await cron({ action: "add", job: { name: "tea", schedule: { kind: "at", at: new Date(T0 + 2000).toISOString() }, payload: { kind: "systemEvent", text: "Reminder: tea" } } }),
  );
  expect(added.next_run).toBe(new Date(T0 + 2000).toISOString());
  expect(added.channel).toBe("telegram");
  const { runner, logger } = await start();
  await advance(clock, T0 + 1000, [runner]);
  expect(deliveries).toEqual([]);
  await advance(clock, T0 + 10_000, [runner]);
  expect(deliveries).toEqual([{ owner: "a", session: "telegram:42", chat: "42", text: "Reminder: tea", at: T0 + 2000 }]);
  const history = await storage.sessions.history("telegram:42", 10);
  expect(history.map((m) => [m.role, m.content])).toEqual([["assistant", "Reminder: tea"]]);
  expect(parsed(await cron({ action: "list" })).jobs).toEqual([]);
  // removed with its slot record, after the run's outcome was recorded: nothing was refused or lost on the way
  expect(await storage.cron.get(`@cron/${added.id}`)).toBeNull();
  expect(logger.records.filter((r) => r.level === "warn" || r.level === "error")).toEqual([]);
});

test("an every job fires once per interval; a cron job in a time zone fires on its slots", async () => {
  const { clock, deliveries, cron, start } = setup();
  parsed(await cron({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "tick" } }));
  const berlin = parsed(
    await cron({ action: "add", schedule: { kind: "cron", expr: "*/2 * * * *", tz: "Europe/Berlin" }, payload: { kind: "systemEvent", text: "cron" } }),
  );
  expect(berlin.next_run).toBe(new Date(T0 + 120_000).toISOString());
  const daily = parsed(await cron({ action: "add", schedule: { kind: "cron", expr: "0 9 * * *", tz: "Europe/Berlin" }, payload: { kind: "systemEvent", text: "nine" } }));
  expect(daily.next_run).toBe("2026-12-06T08:00:00.000Z"); // 09:00 in Berlin, UTC+1 in winter
  const { runner } = await start();
  await advance(clock, T0 + 300_000, [runner]);
  const at = (text: string) => deliveries.filter((d) => d.text === text).map((d) => (d.at - T0) / 1000);
  expect(at("tick")).toEqual([60, 120, 180, 240, 300]);
  expect(at("cron")).toEqual([120, 240]);
  expect(at("nine")).toEqual([]);
});

test("a slot missed while no process ran fires once on start when found due at the end of the grace", async () => {
  const { clock, deliveries, cron, start } = setup();
  const soon = parsed(await cron({ action: "add", schedule: { kind: "at", at: new Date(T0 + 5000).toISOString() }, payload: { kind: "systemEvent", text: "late but within" } }));
  const far = parsed(await cron({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "every" } }));
  // the process was down: time passes with no runner
  await clock.advanceTo(T0 + CRON_TOOL_MISSED_GRACE_MS + 5000);
  const { runner, logger } = await start();
  await advance(clock, clock.now() + 2000, [runner]);
  // the at slot is exactly at the grace: delivered once; the interval's latest missed slot is within it too
  expect(deliveries.map((d) => d.text).sort()).toEqual(["every", "late but within"]);
  expect(soon.id).not.toBe(far.id);
  expect(logger.records.some((r) => String(r.fields?.reason).startsWith("missed:"))).toBe(false);
});

test("a slot found due one ms past the grace is recorded as missed, not run", async () => {
  const { clock: c2, deliveries: d2, cron: cron2, start: start2 } = setup();
  parsed(await cron2({ action: "add", schedule: { kind: "at", at: new Date(T0 + 5000).toISOString() }, payload: { kind: "systemEvent", text: "too late" } }));
  await c2.advanceTo(T0 + 5000 + CRON_TOOL_MISSED_GRACE_MS + 1);
  const second = await start2();
  await advance(c2, c2.now() + 2000, [second.runner]);
  expect(d2).toEqual([]);
  expect(second.logger.records.some((r) => String(r.fields?.reason).startsWith("missed:"))).toBe(true);
  const [job] = parsed(await cron2({ action: "list" })).jobs;
  expect(job.last_error).toContain("grace");
  expect(job.next_run).toBeNull();
});

test("run delivers a job now, once, outside its schedule; runs lists it; remove stops it", async () => {
  const { clock, deliveries, cron, start } = setup();
  const job = parsed(await cron({ action: "add", schedule: { kind: "every", every_ms: 3_600_000 }, payload: { kind: "systemEvent", text: "hourly" } }));
  const { runner } = await start("a");
  const other = (await start("b")).runner;
  expect(parsed(await cron({ action: "run", jobId: job.id })).queued).toBe(true);
  await advance(clock, T0 + 3000, [runner, other]);
  expect(deliveries.map((d) => d.text)).toEqual(["hourly"]);
  const runs = parsed(await cron({ action: "runs", id: job.id })).runs;
  expect(runs).toEqual([{ at: new Date(T0 + 1000).toISOString(), slot: null, ok: true, detail: "hourly" }]);
  expect(parsed(await cron({ action: "remove", jobId: job.id })).removed).toBe(job.id);
  await advance(clock, T0 + 3_700_000, [runner, other]);
  expect(deliveries.length).toBe(1);
});

test("an agentTurn runs its message as a turn of the job's session and delivers the answer to its chat", async () => {
  const { clock, deliveries, turns, cron, start } = setup();
  await cron({ action: "add", schedule: { kind: "at", at: new Date(T0 + 60_000).toISOString() }, payload: { kind: "agentTurn", message: "summarize the news" } });
  const { runner } = await start();
  await advance(clock, T0 + 61_000, [runner]);
  expect(turns.map((t) => [t.sessionId, t.text, t.channel, (t.metadata as { chat_id: string }).chat_id])).toEqual([
    ["telegram:42", "summarize the news", "telegram", "42"],
  ]);
  expect(deliveries.map((d) => [d.chat, d.text])).toEqual([["42", "answer to: summarize the news"]]);
});

test("a restarted process does not fire a slot again; another channel's jobs are not this process's", async () => {
  const { clock, deliveries, cron, start } = setup();
  await cron({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "once a minute" } });
  const first = await start();
  await advance(clock, T0 + 61_000, [first.runner]);
  await first.runner.stop();
  const second = await start();
  await advance(clock, T0 + 119_000, [second.runner]);
  expect(deliveries.map((d) => d.at - T0)).toEqual([60_000]);
  await advance(clock, T0 + 121_000, [second.runner]);
  expect(deliveries.map((d) => d.at - T0)).toEqual([60_000, 120_000]);
  await storage.cronJobs.add({ ...(await storage.cronJobs.list())[0]!, id: "slackjob", channel: "slack" });
  await advance(clock, T0 + 181_000, [second.runner]);
  expect(deliveries.map((d) => d.at - T0)).toEqual([60_000, 120_000, 180_000]);
});

test("more jobs than one scheduler takes (adds racing past the limit): the oldest CRON_MAX_JOBS run, the newest waits", async () => {
  const { clock, deliveries, cron, start } = setup();
  const seed = parsed(await cron({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "job" } }));
  const row = (await storage.cronJobs.get(seed.id))!;
  for (let i = 1; i <= CRON_MAX_JOBS; i++) storage.cronJobs.add({ ...row, id: `j${String(i).padStart(5, "0")}`, created_at: T0 + i });
  const { runner, logger } = await start();
  await advance(clock, T0 + 61_000, [runner]);
  expect(deliveries.length).toBe(CRON_MAX_JOBS);
  expect(deliveries.some((d) => d.session === "telegram:42")).toBe(true);
  expect(logger.records.filter((r) => r.message.startsWith("more cron jobs")).length).toBe(1);
}, 30_000);

test("a run's recorded detail: a delivery of CRON_TOOL_RUN_DETAIL_CHARS is kept whole, one character more is cut to it", async () => {
  const { clock, deliveries, cron, start } = setup();
  const whole = "w".repeat(CRON_TOOL_RUN_DETAIL_CHARS);
  const longer = `${"c".repeat(CRON_TOOL_RUN_DETAIL_CHARS)}!`;
  // every minute (an `at` job goes with its runs once done)
  const every = (text: string) => cron({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text } });
  const a = parsed(await every(whole));
  const b = parsed(await every(longer));
  const { runner } = await start();
  await advance(clock, T0 + 60_000, [runner]);
  // delivered whole either way: only the run's record is bounded
  expect(deliveries.map((d) => d.text).sort()).toEqual([longer, whole]);
  const [runA] = await storage.cronJobs.runs(a.id, 1);
  const [runB] = await storage.cronJobs.runs(b.id, 1);
  expect(runA!.detail).toBe(whole);
  expect(runB!.detail).toBe("c".repeat(CRON_TOOL_RUN_DETAIL_CHARS));
});
