/**
 * The cron tool's schema and limits at the boundary: each limit at its value passes and one past fails, with a
 * message saying what to fix; a session sees and changes only its own jobs.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import { CRON_MAX_EXPRESSION_LENGTH } from "../../src/core/cron/index.ts";
import {
  CRON_TOOL_MAX_AHEAD_MS,
  CRON_TOOL_MAX_EVERY_MS,
  CRON_TOOL_MAX_JOBS,
  CRON_TOOL_MAX_JOBS_PER_SESSION,
  CRON_TOOL_MAX_NAME_CHARS,
  CRON_TOOL_MAX_TEXT_CHARS,
  CRON_TOOL_MIN_EVERY_MS,
} from "../../src/tools/builtins/cron-limits.ts";
import { riskOf } from "../../src/agent/approvals/risk.ts";
import { FakeClock } from "../plugins/cron/fake-clock.ts";
import { cronTool, parsed } from "../agent/cron/harness.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
let storage: SqliteStorage;
let cron: ReturnType<typeof cronTool>;
beforeEach(() => {
  storage = openSqliteStorage(":memory:");
  cron = cronTool(storage, new FakeClock(T0));
});
afterEach(() => storage.close());

const reminder = (text: string) => ({ kind: "systemEvent", text });
const inAMinute = { kind: "at", at: new Date(T0 + 60_000).toISOString() };
const add = (job: Record<string, unknown>, session?: string) => cron({ action: "add", job }, session);

describe("cron tool", () => {
  test("adding is a write, asked for under supervision like other writes", () => {
    expect(riskOf("cron", undefined)).toBe("write");
  });

  test("payload text: at the limit passes, one past fails; empty fails", async () => {
    expect((await add({ schedule: inAMinute, payload: reminder("x".repeat(CRON_TOOL_MAX_TEXT_CHARS)) })).success).toBe(true);
    const over = await add({ schedule: inAMinute, payload: reminder("x".repeat(CRON_TOOL_MAX_TEXT_CHARS + 1)) });
    expect(over.error).toContain("job.payload.text");
    expect((await add({ schedule: inAMinute, payload: { kind: "agentTurn", message: "y".repeat(CRON_TOOL_MAX_TEXT_CHARS + 1) } })).success).toBe(false);
    expect((await add({ schedule: inAMinute, payload: reminder("") })).success).toBe(false);
  });

  test("every_ms: the minimum and the maximum pass, one past either fails; everyMs is the same", async () => {
    const every = (ms: number, key = "every_ms") => add({ schedule: { kind: "every", [key]: ms }, payload: reminder("r") });
    expect((await every(CRON_TOOL_MIN_EVERY_MS)).success).toBe(true);
    expect((await every(CRON_TOOL_MIN_EVERY_MS - 1)).error).toContain("every_ms");
    expect((await every(CRON_TOOL_MAX_EVERY_MS)).success).toBe(true);
    expect((await every(CRON_TOOL_MAX_EVERY_MS + 1)).success).toBe(false);
    expect((await every(CRON_TOOL_MIN_EVERY_MS, "everyMs")).success).toBe(true);
    expect((await every(CRON_TOOL_MIN_EVERY_MS - 1, "everyMs")).success).toBe(false);
    expect((await add({ schedule: { kind: "every" }, payload: reminder("r") })).error).toContain("needs every_ms");
  });

  test("jobs per session: the last one that fits is added, one more is refused; other sessions are not counted", async () => {
    for (let i = 0; i < CRON_TOOL_MAX_JOBS_PER_SESSION; i++) {
      expect((await add({ schedule: inAMinute, payload: reminder(`r${i}`) })).success).toBe(true);
    }
    const over = await add({ schedule: inAMinute, payload: reminder("one more") });
    expect(over.error).toContain(`${CRON_TOOL_MAX_JOBS_PER_SESSION} cron jobs`);
    expect((await add({ schedule: inAMinute, payload: reminder("elsewhere") }, "telegram:43")).success).toBe(true);
  });

  test("jobs of the workspace: at the limit the next is refused", async () => {
    const row = parsed(await add({ schedule: inAMinute, payload: reminder("seed") }));
    const stored = (await storage.cronJobs.get(row.id))!;
    for (let i = 1; i < CRON_TOOL_MAX_JOBS; i++) storage.cronJobs.add({ ...stored, id: `j${i}`, session_id: `s${i}` });
    expect(await storage.cronJobs.count()).toBe(CRON_TOOL_MAX_JOBS);
    expect((await add({ schedule: inAMinute, payload: reminder("one more") }, "fresh")).error).toContain(`${CRON_TOOL_MAX_JOBS} cron jobs`);
    await storage.cronJobs.remove("j1");
    expect((await add({ schedule: inAMinute, payload: reminder("fits again") }, "fresh")).success).toBe(true);
  });

  test("name and cron expression lengths: at the limit pass, one past fails", async () => {
    expect((await add({ name: "n".repeat(CRON_TOOL_MAX_NAME_CHARS), schedule: inAMinute, payload: reminder("r") })).success).toBe(true);
    expect((await add({ name: "n".repeat(CRON_TOOL_MAX_NAME_CHARS + 1), schedule: inAMinute, payload: reminder("r") })).success).toBe(false);
    const expr = (n: number) => "0 9 * * *" + " ".repeat(n - 9);
    expect((await add({ schedule: { kind: "cron", expr: expr(CRON_MAX_EXPRESSION_LENGTH) }, payload: reminder("r") })).success).toBe(true);
    expect((await add({ schedule: { kind: "cron", expr: expr(CRON_MAX_EXPRESSION_LENGTH + 1) }, payload: reminder("r") })).success).toBe(false);
  });

  test("an at instant must be ahead, within ten years; without an offset it is UTC; a bad one is named", async () => {
    expect((await add({ schedule: { kind: "at", at: new Date(T0).toISOString() }, payload: reminder("r") })).error).toContain("not in the future");
    expect((await add({ schedule: { kind: "at", at: new Date(T0 + CRON_TOOL_MAX_AHEAD_MS).toISOString() }, payload: reminder("r") })).success).toBe(true);
    expect((await add({ schedule: { kind: "at", at: new Date(T0 + CRON_TOOL_MAX_AHEAD_MS + 1000).toISOString() }, payload: reminder("r") })).success).toBe(false);
    expect(parsed(await add({ schedule: { kind: "at", at: "2026-12-05T11:30:00" }, payload: reminder("r") })).next_run).toBe("2026-12-05T11:30:00.000Z");
    expect(parsed(await add({ schedule: { kind: "at", at: "2026-12-05T12:30:00+02:00" }, payload: reminder("r") })).next_run).toBe("2026-12-05T10:30:00.000Z");
    expect((await add({ schedule: { kind: "at", at: "tomorrow" }, payload: reminder("r") })).error).toContain("ISO-8601");
  });

  test("the schema is checked at the boundary: unknown keys, kinds and actions are refused naming the path", async () => {
    expect((await cron({ action: "pause" })).error).toContain("action");
    expect((await add({ schedule: { kind: "yearly" }, payload: reminder("r") })).error).toContain("job.schedule");
    expect((await add({ schedule: inAMinute, payload: reminder("r"), extra: 1 })).success).toBe(false);
    expect((await add({ schedule: { kind: "cron", expr: "61 * * * *" }, payload: reminder("r") })).error).toContain("minute");
    expect((await add({ schedule: { kind: "cron", expr: "0 9 * * *", tz: "Mars/Olympus" }, payload: reminder("r") })).error).toContain("time zone");
    expect((await add({ schedule: { kind: "cron", expr: "0 0 30 2 *" }, payload: reminder("r") })).success).toBe(false);
    expect((await cron({ action: "add" })).error).toContain("add needs job");
    // the job beside action is checked against the same schema
    expect((await cron({ action: "add", schedule: { kind: "yearly" }, payload: reminder("r") })).error).toContain("schedule");
    expect((await cron({ action: "add", schedule: inAMinute, payload: reminder("x".repeat(CRON_TOOL_MAX_TEXT_CHARS + 1)) })).error).toContain("payload.text");
    expect((await cron({ action: "add", job: { schedule: inAMinute, payload: reminder("r") }, name: "twice" })).error).toContain("not both");
    expect((await cron({ action: "remove" })).error).toContain("needs jobId");
  });

  test("a session lists, runs and removes only its own jobs", async () => {
    const mine = parsed(await add({ name: "mine", schedule: inAMinute, payload: reminder("r") }));
    const theirs = parsed(await add({ schedule: inAMinute, payload: reminder("r") }, "telegram:43"));
    expect(parsed(await cron({ action: "list" })).jobs.map((j: { id: string }) => j.id)).toEqual([mine.id]);
    expect((await cron({ action: "remove", jobId: theirs.id })).error).toContain("no cron job");
    expect((await cron({ action: "run", jobId: theirs.id })).success).toBe(false);
    expect((await cron({ action: "remove", jobId: theirs.id }, "telegram:43")).success).toBe(true);
  });
});
