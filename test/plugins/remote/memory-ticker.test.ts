import { expect, test } from "bun:test";
import {
  MemoryTicker,
  processMemoryGuard,
  workerMemoryGuard,
  type MemoryGuard,
} from "../../../src/plugins/remote/host/memory/index.ts";
import { startMemoryReports } from "../../../src/plugins/remote/worker-runtime/memory-report.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";

const TICK_MS = 250;

/** Timers that count what is armed (`live.size`); a tick is one period of TICK_MS passed. */
function countingTimers() {
  const clock = fakeTimers();
  const live = {
    get size() {
      return clock.pending();
    },
  };
  return { timers: clock.timers, live, tick: () => clock.advance(TICK_MS) };
}

/** `n` Worker and `n` subprocess plugins' guards on one ticker, each counting its measurements. */
function guards(ticker: MemoryTicker, n: number) {
  let checks = 0;
  const all: MemoryGuard[] = [];
  for (let i = 0; i < n; i++) {
    const worker = workerMemoryGuard(
      { capMb: 1024, onOver: () => {}, ticker, staleMs: -1 },
      () => (checks++, 0),
    );
    worker.ready();
    all.push(worker, processMemoryGuard(process.pid, { capMb: 1 << 20, onOver: () => {}, ticker }));
  }
  return { all, checks: () => checks };
}

test("the memory checks of 1 and of 20 remote plugins share one timer, armed only while a plugin runs", () => {
  for (const plugins of [1, 20]) {
    const { timers, live, tick } = countingTimers();
    const ticker = new MemoryTicker(TICK_MS, timers);
    expect(live.size).toBe(0);
    const { all, checks } = guards(ticker, plugins);
    expect(live.size).toBe(1);
    expect(ticker.size).toBe(2 * plugins);
    const before = checks();
    tick();
    // one wake-up measured every Worker (and read every subprocess's RSS)
    expect(checks() - before).toBe(plugins);
    expect(all.filter((g) => g.usedBytes !== null).length).toBeGreaterThanOrEqual(plugins);
    for (const guard of all) guard.stop();
    expect(live.size).toBe(0);
    expect(ticker.armed).toBe(false);
  }
});

test("a silent Worker counts as busy in synchronous code after staleMs while a call is in flight, after idleStaleMs while none is", () => {
  const { timers, tick } = countingTimers();
  const ticker = new MemoryTicker(TICK_MS, timers);
  let busy = false;
  let over: string | null = null;
  const rss = { bytes: 0 };
  const guard = workerMemoryGuard(
    { capMb: 1, onOver: (_bytes, how) => (over = how), ticker, busy: () => busy, staleMs: -1, idleStaleMs: 1e9 },
    () => rss.bytes,
  );
  guard.ready();
  guard.report(0);
  rss.bytes = 2 * 1024 * 1024; // the process grew past the 1 MB cap since the report
  tick();
  expect(over).toBeNull(); // idle: its silence is well within idleStaleMs
  busy = true;
  tick();
  expect(over).toMatch(/did not report/); // a call in flight: stale at once (staleMs -1), measured by the process
  guard.stop();
});

test("a Worker reports its memory at the start, then on its timer: a call only quickens the pace", () => {
  const sent: number[] = [];
  const reports = startMemoryReports((m) => sent.push(m.heapBytes), undefined, 1e6, 1e7);
  expect(sent.length).toBe(1);
  reports.beforeCall();
  reports.beforeCall();
  reports.afterCall();
  reports.afterCall();
  reports.beforeCall();
  reports.afterCall();
  expect(sent.length).toBe(1);
  reports.stop();
});

test("a call that leaves a Worker over its cap is reported at once", () => {
  const sent: number[] = [];
  // a cap of 1 MB and a heap holding 16 MB, sized by a collection (heapSize() reads what the last one left)
  const ballast = new Array(2_000_000).fill(1);
  Bun.gc(true);
  const reports = startMemoryReports((m) => sent.push(m.heapBytes), 1, 1e6, 1e7);
  expect(sent.length).toBe(1);
  reports.beforeCall();
  reports.afterCall();
  expect(sent.length).toBe(2);
  reports.stop();
  expect(ballast.length).toBe(2_000_000);
});
