import { expect, test } from "bun:test";
import { captureLogs, kvText, openHost, workspaceWith } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb } from "../../helpers/host-db.ts";

interface CronEvent {
  job: string;
  slot: string;
  ok: boolean;
  output?: string;
  coalesced?: number;
}

test("a cron job fires exactly once per slot across a reload; results are published as prx.cron.<plugin>", async () => {
  captureLogs();
  const ws = workspaceWith(["cron-count"]);
  // Every second: the runtime's scheduler claims each slot in SQLite before it runs.
  const opened = await openHost(ws.root, { cron: true });
  const events: CronEvent[] = [];
  const listener = opened.services.bus!.on("prx.cron.*", (event) => void events.push(event.payload as CronEvent));
  try {
    const runtime = opened.services.runtime;
    await waitFor(() => events.length >= 2, "two cron runs", 5_000);
    const beforeReload = events.length;
    const generation = await runtime.reload("cron-count");
    expect(generation).toBe(2);
    await waitFor(() => events.length >= 4, "two more cron runs after the reload", 8_000);
    listener.off();
    await opened.services.cron.idle();
    expect(events.length).toBeGreaterThan(beforeReload);
    const slots = events.map((e) => Date.parse(e.slot));
    expect(new Set(slots).size).toBe(slots.length);
    expect(events.every((e) => e.ok && e.job === "cron-count/count")).toBe(true);
    // Every slot between the first and the last is accounted for: fired, or coalesced into a later run (logged).
    const covered = events.reduce((n, e) => n + (e.coalesced ?? 1), 0);
    expect(covered).toBe((Math.max(...slots) - Math.min(...slots)) / 1000 + 1);
    // The guest ran once per event, through both generations (its counter lives in KV, outside generations).
    const runs = Number(kvText(hostDb(opened.host), "cron-count", "runs"));
    expect(runs).toBeGreaterThanOrEqual(events.length);
    expect(events.at(-1)!.output).toMatch(/^run #\d+$/);
    const counters = runtime.status.get("cron-count", "cron", "count")!;
    expect(counters.errors).toBe(0);
    expect(counters.invocations).toBe(runs);
  } finally {
    listener.off();
    await opened.host.close();
    ws.cleanup();
  }
}, 20_000);
