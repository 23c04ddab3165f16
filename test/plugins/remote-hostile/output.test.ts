/**
 * A plugin flooding its output: every garbage line is counted, the host logs summaries of it rather than the lines,
 * the console budget drops what is over it in both transports (every line printed or counted), and the plugin keeps
 * serving. The budgets per interval themselves are tested on a hand-moved clock in output-units.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";
import { REMOTE_LOG_SUMMARY_INTERVAL_MS } from "../../../src/plugins/remote/limits.ts";
import { startHostile, TRANSPORTS, withLogs, type Hostile } from "./helpers.ts";
import { HOSTILE_NAME } from "./fixture.ts";
import { waitFor } from "../../helpers/wait.ts";

const MiB = 1024 * 1024;
// crashes and late summaries are asserted through status and captured logs; keep the test output readable
const level = getLogLevel();
beforeAll(() => setLogLevel("silent"));
afterAll(() => setLogLevel(level));

const running: Hostile[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

async function start(...args: Parameters<typeof startHostile>): Promise<Hostile> {
  const h = await startHostile(...args);
  running.push(h);
  return h;
}

/** The JSON fields at the end of a log line. */
function fieldsOf(line: string): Record<string, unknown> {
  return JSON.parse(line.slice(line.indexOf(" {") + 1)) as Record<string, unknown>;
}

/** How long a flood may take to be fully accounted for on a loaded machine. */
const ACCOUNTED_WITHIN_MS = 20_000;

test("a subprocess writing 1 MiB of garbage lines to stdout: each counted, logged as summaries", async () => {
  await withLogs("error", async (logs) => {
    const h = await start("process");
    const flooded = await h.act("FLOOD", { kind: "stdout", bytes: MiB, line: 2 });
    expect(flooded.output).toBe(`flooded ${MiB / 2} lines`);
    expect(h.handle.status().malformed).toBe(MiB / 2);
    const refusals = () => logs.filter((l) => l.includes("[remote.hostile] refused"));
    const logged = () =>
      refusals().reduce((n, l) => {
        const f = fieldsOf(l);
        return n + (typeof f.count === "number" ? 1 : (f.malformed as number));
      }, 0);
    await waitFor(() => logged() === MiB / 2, "every refused line in the log's counts", ACCOUNTED_WITHIN_MS);
    // summaries with counts, not a log line per garbage line
    expect(refusals().length).toBeLessThan(MiB / 2 / 1000);
    expect(h.handle.status().lastError).toContain("not a JSON object: x");
    expect((await h.act("NOOP")).output).toBe("ok");
  });
}, 30_000);

describe.each(TRANSPORTS)("runtime.logger and raw log messages over %s", (transport) => {
  test("a runtime.logger loop reaches the host's log within the budget; dropped lines are counted", async () => {
    await withLogs("warn", async (logs) => {
      const h = await start(transport);
      const lines = 32_768;
      const flooded = await h.act("FLOOD", { kind: "logger", bytes: lines * 2, line: 2 });
      expect(flooded.output).toBe(`flooded ${lines} lines`);
      const printed = () => logs.filter((l) => l.includes("[remote.hostile] x")).length;
      const dropped = () =>
        logs
          .filter((l) => l.includes("runtime.logger lines dropped"))
          .reduce((n, l) => n + Number(/ (\d+) runtime\.logger lines dropped/.exec(l)![1]), 0);
      await waitFor(() => printed() + dropped() === lines, "printed + dropped = lines sent", ACCOUNTED_WITHIN_MS);
      expect(dropped()).toBeGreaterThan(0);
      expect(printed()).toBeGreaterThan(0);
      expect(h.handle.status().logDropped).toBe(0);
    });
  }, 30_000);

  test("log messages sent past the worker runtime are cut to the budget by the host and counted", async () => {
    await withLogs("error", async (logs) => {
      const h = await start(transport);
      expect((await h.act("LOGRAW", { n: 5_000 })).output).toBe("sent");
      const logged = () => logs.filter((l) => l.includes("raw log line")).length;
      await waitFor(() => logged() + h.handle.status().logDropped === 5_000, "logged + dropped = sent", ACCOUNTED_WITHIN_MS);
      expect(h.handle.status().logDropped).toBeGreaterThan(0);
    });
  }, 30_000);
});

test("a subprocess flooding raw stderr keeps serving; its crash report shows its last lines", async () => {
  const h = await start("process");
  expect((await h.act("FLOOD", { kind: "stderr", bytes: 32 * MiB, line: 2 })).output).toBe(`flooded ${16 * MiB} lines`);
  expect((await h.act("NOOP")).output).toBe("ok");
  await h.act("EXIT", { words: "goodbye from the flood" });
  await waitFor(() => (h.handle.status().lastError ?? "").includes("crashed"), "the exit noticed", 10_000);
  expect(h.handle.status().lastError).toContain("x | x | goodbye from the flood");
}, 60_000);

test("console output of a subprocess goes through the budget: its summary reaches the crash report", async () => {
  const h = await start("process");
  await h.act("FLOOD", { kind: "console", bytes: 4 * MiB, line: 2 });
  await Bun.sleep(REMOTE_LOG_SUMMARY_INTERVAL_MS + 200);
  await h.act("EXIT", { words: "done" });
  await waitFor(() => (h.handle.status().lastError ?? "").includes("crashed"), "the exit noticed", 10_000);
  expect(h.handle.status().lastError).toMatch(/\d+ console lines dropped: over 200 lines .* \| done$/);
}, 30_000);

test("a Worker's console flood reaches the host process's stderr within the budget, prefixed with the plugin's name, every line accounted for", async () => {
  const lines = 4 * MiB;
  const host = join(import.meta.dir, "flood-host.ts");
  const proc = Bun.spawn([process.execPath, host, "worker", "console", String(lines * 2)], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(await proc.exited).toBe(0);
  const { result } = JSON.parse(out) as { result: { output: string } };
  expect(result.output).toBe(`flooded ${lines} lines`);
  // a Worker writes to this process's stderr: each of its lines names the plugin
  const printed = err.split("\n").filter((l) => l === `[${HOSTILE_NAME}] x`).length;
  const dropped = [...err.matchAll(/(\d+) console lines dropped/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(printed + dropped).toBe(lines);
  expect(printed).toBeGreaterThan(0);
  expect(printed).toBeLessThan(lines / 100);
}, 60_000);
