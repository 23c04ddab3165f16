/**
 * The CLI's named limits at their boundary: how long a command waits for the running gateway (on a clock the test
 * moves) and how many log lines `prx logs` shows by default.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { LOGS_DEFAULT_LINES } from "../../src/cli/logs.ts";
import { GATEWAY_CONTROL_TIMEOUT_MS, runningGateway } from "../../src/cli/running-gateway.ts";
import { LOG_FILE_NAME } from "../../src/core/log-file.ts";
import { writePresence } from "../../src/gateway/presence-write.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { waitFor } from "../helpers/wait.ts";

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Timeouts on a clock the test moves: each fires (TimeoutError, as AbortSignal.timeout's) once `advance` reaches it. */
function testClock() {
  let now = 0;
  const timers: Array<{ at: number; controller: AbortController }> = [];
  return {
    timeout(ms: number): AbortSignal {
      const controller = new AbortController();
      timers.push({ at: now + ms, controller });
      return controller.signal;
    },
    advance(ms: number): void {
      now += ms;
      for (const timer of timers) {
        if (now >= timer.at && !timer.controller.signal.aborted) timer.controller.abort(new DOMException("The operation timed out.", "TimeoutError"));
      }
    },
  };
}

describe("GATEWAY_CONTROL_TIMEOUT_MS: how long a command waits for the running gateway", () => {
  /** A gateway that answers only when the test lets it: each request waits for `answer()`. */
  function slowGateway() {
    const waiting: Array<() => void> = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Promise<Response>((resolve) => waiting.push(() => resolve(Response.json({ ok: true })))),
    });
    const dataDir = tempDir("prx-control-timeout-");
    mkdirSync(dataDir, { recursive: true });
    writePresence({ dataDir }, { pid: process.pid, url: `http://127.0.0.1:${server.port}`, version: "test", started_at: new Date(0).toISOString(), control_token: "t" });
    return {
      dataDir,
      received: () => waitFor(() => waiting.length > 0, "the request at the gateway"),
      answer: () => waiting.shift()!(),
      stop: () => server.stop(true),
    };
  }

  /** GET /api/status asked of the slow gateway with timeouts on the test's clock; resolves once the gateway has it. */
  async function ask(gateway: ReturnType<typeof slowGateway>, clock: ReturnType<typeof testClock>) {
    const running = runningGateway({ dataDir: gateway.dataDir }, (ms) => clock.timeout(ms))!;
    const asked = running.request("GET", "/api/status", z.object({ ok: z.boolean() }));
    // settled either way, so a refusal before the test looks is not an unhandled rejection
    const outcome = asked.then(
      (value) => ({ value, error: null }),
      (error: unknown) => ({ value: null, error: error as { code: string; message: string; hint?: string } }),
    );
    await gateway.received();
    // wrapped: an async function returning the promise itself would wait for it
    return { outcome };
  }

  test("an answer within the limit is read: the clock stands one ms short of it", async () => {
    const gateway = slowGateway();
    const clock = testClock();
    try {
      const { outcome } = await ask(gateway, clock);
      clock.advance(GATEWAY_CONTROL_TIMEOUT_MS - 1);
      gateway.answer();
      expect(await outcome).toEqual({ value: { ok: true }, error: null });
    } finally {
      await gateway.stop();
    }
  });

  test("no answer when the limit is reached: GATEWAY_UNREACHABLE naming the request, with what to do", async () => {
    const gateway = slowGateway();
    const clock = testClock();
    try {
      const { outcome } = await ask(gateway, clock);
      clock.advance(GATEWAY_CONTROL_TIMEOUT_MS);
      const { error } = await outcome;
      expect(error).toMatchObject({ code: "GATEWAY_UNREACHABLE" });
      expect(error!.message).toContain("did not answer GET /api/status");
      expect(error!.hint).toContain("prx status");
      gateway.answer();
    } finally {
      await gateway.stop();
    }
  });
});

describe("LOGS_DEFAULT_LINES: what `prx logs` shows without --lines", () => {
  const line = (i: number) => `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z INFO  [gateway] line ${i}`;
  async function logsOf(count: number): Promise<string[]> {
    const dir = tempDir("prx-logs-lines-");
    mkdirSync(join(dir, "logs"), { recursive: true });
    writeFileSync(join(dir, "logs", LOG_FILE_NAME), Array.from({ length: count }, (_, i) => line(i + 1)).join("\n") + "\n");
    const shown = await runPrx(["logs", "-w", dir], { env: { HOME: dir } });
    expect(shown.code).toBe(0);
    return shown.stdout.trimEnd().split("\n");
  }

  test("a log of exactly the limit is shown whole", async () => {
    await ensureBinary();
    const lines = await logsOf(LOGS_DEFAULT_LINES);
    expect(lines).toHaveLength(LOGS_DEFAULT_LINES);
    expect(lines[0]).toEndWith("line 1");
  });

  test("one line more: the oldest is left out, the newest LOGS_DEFAULT_LINES are shown", async () => {
    const lines = await logsOf(LOGS_DEFAULT_LINES + 1);
    expect(lines).toHaveLength(LOGS_DEFAULT_LINES);
    expect(lines[0]).toEndWith("line 2");
    expect(lines.at(-1)).toEndWith(`line ${LOGS_DEFAULT_LINES + 1}`);
  });
});
