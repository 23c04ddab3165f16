import { expect, test } from "bun:test";
import { captureLogs, kvText, openHost, workspaceWith } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb } from "../../helpers/host-db.ts";
import { FakeClock } from "../cron/fake-clock.ts";

interface CronEvent {
  job: string;
  slot: string;
  ok: boolean;
  output?: string;
  coalesced?: number;
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const SECOND = 1000;

test("a cron job fires exactly once per slot across a reload; results are published as prx.cron.<plugin>", async () => {
  captureLogs();
  const ws = workspaceWith(["cron-count"]);
  // Every second, on a manual clock: the runtime's scheduler claims each slot in SQLite before it runs.
  const clock = new FakeClock(T0);
  const opened = await openHost(ws.root, { cron: true, cronClock: clock });
  const events: CronEvent[] = [];
  const listener = opened.services.bus!.on("prx.cron.*", (event) => void events.push(event.payload as CronEvent));
  /** Move the clock to `at`, let the due run finish, and wait for its result on the bus. */
  const runUntil = async (at: number, published: number) => {
    await clock.advanceTo(at);
    await opened.services.cron.idle();
    await waitFor(() => events.length >= published, `${published} cron results`);
  };
  try {
    const runtime = opened.services.runtime;
    await runUntil(T0 + SECOND, 1);
    await runUntil(T0 + 2 * SECOND, 2);
    const generation = await runtime.reload("cron-count");
    expect(generation).toBe(2);
    await runUntil(T0 + 3 * SECOND, 3);
    await runUntil(T0 + 4 * SECOND, 4);
    // The process slept through slot 5: the next timer finds slot 6 due and fires once for both (logged).
    clock.t = T0 + 6 * SECOND;
    await runUntil(T0 + 6 * SECOND, 5);
    listener.off();
    expect(events.map((e) => (Date.parse(e.slot) - T0) / SECOND)).toEqual([1, 2, 3, 4, 6]);
    expect(events.map((e) => e.coalesced ?? 1)).toEqual([1, 1, 1, 1, 2]);
    expect(events.every((e) => e.ok && e.job === "cron-count/count")).toBe(true);
    // The guest ran once per event, through both generations (its counter lives in KV, outside generations).
    expect(Number(kvText(hostDb(opened.host), "cron-count", "runs"))).toBe(5);
    expect(events.map((e) => e.output)).toEqual(["run #1", "run #2", "run #3", "run #4", "run #5"]);
    const counters = runtime.status.get("cron-count", "cron", "count")!;
    expect(counters.errors).toBe(0);
    expect(counters.invocations).toBe(5);
  } finally {
    listener.off();
    await opened.host.close();
    ws.cleanup();
  }
}, 20_000);
