/** A remote plugin over its host-call budget: refused calls answer RATE_LIMITED and are counted in status. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";
import { remoteInfo } from "../../../src/plugins/remote/info.ts";
import { startHostile, TRANSPORTS, type Hostile } from "./helpers.ts";

const level = getLogLevel();
beforeAll(() => setLogLevel("silent"));
afterAll(() => setLogLevel(level));
const running: Hostile[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

const AT = Date.parse("2026-01-02T03:04:05.000Z");

describe.each(TRANSPORTS)("host-call budget over %s", (transport) => {
  test("the burst passes, the call after it is refused with the limit and how to raise it, and status counts it", async () => {
    // a clock that never moves: nothing refills, so exactly `burst` calls pass
    const hostCalls = { perSecond: 5, burst: 7, inFlight: 16 };
    const h = await startHostile(transport, { hostCalls, hostCallClock: () => AT });
    running.push(h);
    // the worker runtime's start made host calls of its own (getSettings): they took tokens too
    const before = h.handle.status();
    const left = hostCalls.burst - before.hostCalls;
    const result = await h.act("HOSTCALLS", { n: left + 1 });
    expect(result.success).toBe(true);
    const out = JSON.parse(result.output) as { ok: number; refused: number; other: number; code: string; message: string };
    expect([out.ok, out.refused, out.other, out.code]).toEqual([left, 1, 0, "RATE_LIMITED"]);
    expect(out.message).toContain(
      "runtime.getCache refused: plugin hostile is over its host-call rate (max_host_calls_per_second = 5, " +
        "host_call_burst = 7); slow down, or raise them in the [resources] table of hostile's plugin.toml",
    );
    const status = h.handle.status();
    expect(status.hostCalls).toBe(hostCalls.burst + 1);
    expect([status.hostRefused, status.lastHostRefusal]).toEqual([1, "2026-01-02T03:04:05.000Z"]);
    expect(remoteInfo(h.handle)).toMatchObject({ host_refused: 1, last_host_refusal: "2026-01-02T03:04:05.000Z" });
    // refused calls do not hurt the plugin: it still answers
    expect((await h.act("NOOP")).output).toBe("ok");
  }, 30_000);
});

test("a plugin within its budget sees no refusal and status shows none", async () => {
  const h = await startHostile("worker");
  running.push(h);
  const out = JSON.parse((await h.act("HOSTCALLS", { n: 50 })).output) as { ok: number; refused: number };
  expect([out.ok, out.refused]).toEqual([50, 0]);
  expect(h.handle.status()).toMatchObject({ hostRefused: 0, lastHostRefusal: null });
}, 30_000);
