/**
 * The supervisor's bounds with real child processes (test/channels/fake-channel-child.ts speaks the IPC messages; the
 * supervisor is the unit): requests in flight per channel process, the wait for a forwarded request's answer, and
 * the kill of a process that does not stop in time. Time limits are shorter ones passed in.
 */
import { alive } from "../helpers/process.ts";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CHANNEL_HTTP_TIMEOUT_MS, CHANNEL_KILL_AFTER_MS, CHANNEL_LOG_LINE_MAX_BYTES, CHANNEL_MAX_INFLIGHT_HTTP } from "../../src/channels/limits.ts";
import { ChannelSupervisor, type SupervisorLimits } from "../../src/channels/supervisor.ts";
import type { ForwardedResponse } from "../../src/channels/types.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { Logger } from "../../src/core/logger.ts";
import { waitFor } from "../helpers/wait.ts";


const dir = mkdtempSync(join(tmpdir(), "prx-supervisor-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHILD = resolve(import.meta.dir, "fake-channel-child.ts");
const channels = ConfigSchema.parse({ channels: { hook: { kind: "webhook", enabled: true, secret_env: "HOOK_SECRET" } } }).channels;

function start(env: Record<string, string>, limits?: Partial<SupervisorLimits>) {
  const warnings: string[] = [];
  const logged: string[] = [];
  const noop = () => {};
  const logger: Logger = { trace: noop, debug: noop, info: noop, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m), child: () => logger };
  const supervisor = new ChannelSupervisor({
    workspace: dir,
    channels,
    command: [process.execPath, CHILD],
    env: { PATH: process.env.PATH, ...env },
    logger,
    limits,
    logLine: (line) => void logged.push(line),
  });
  supervisor.start();
  return { supervisor, warnings, logged, running: () => waitFor(() => supervisor.list()[0]!.state === "running", "the child to say ready", 15_000) };
}

const request = (body: string) => ({ method: "POST", headers: {}, body });


describe("channel supervisor bounds", () => {
  test(`a channel process's log line of ${CHANNEL_LOG_LINE_MAX_BYTES} bytes reaches the gateway's log; one of a byte more is left out with a note`, async () => {
    const { supervisor, logged } = start({ FAKE_LOG_LINE_BYTES: String(CHANNEL_LOG_LINE_MAX_BYTES) });
    try {
      await waitFor(() => logged.includes("log done"), "the child's last log line", 15_000);
      expect(logged[0]).toBe("a".repeat(CHANNEL_LOG_LINE_MAX_BYTES));
      expect(logged[1]).toContain(`[channel.hook] a log line of ${CHANNEL_LOG_LINE_MAX_BYTES + 1} bytes, over ${CHANNEL_LOG_LINE_MAX_BYTES}, left out`);
      expect(logged.length).toBe(3);
    } finally {
      await supervisor.stop();
    }
  });

  test("an error the channel process reports is its last error, with its time, in the channel list", async () => {
    const { supervisor } = start({ FAKE_ERROR: "telegram: getUpdates: 409 Conflict" });
    try {
      await waitFor(() => supervisor.list()[0]!.last_error !== null, "the reported error", 15_000);
      expect(supervisor.list()[0]).toMatchObject({ state: "running", last_error: "telegram: getUpdates: 409 Conflict", last_error_at: "2023-11-14T22:13:20.000Z" });
    } finally {
      await supervisor.stop();
    }
  });

  test(`${CHANNEL_MAX_INFLIGHT_HTTP} forwarded requests may wait on one process; one more is 429 until one is answered`, async () => {
    const { supervisor, running } = start({ FAKE_RELEASE_AT: String(CHANNEL_MAX_INFLIGHT_HTTP) });
    try {
      await running();
      const waiting = Array.from({ length: CHANNEL_MAX_INFLIGHT_HTTP - 1 }, () => supervisor.forward("hook", request("hold")));
      // at the limit: the last one that fits is still forwarded
      waiting.push(supervisor.forward("hook", request("hold")));
      let refused: unknown;
      try {
        await supervisor.forward("hook", request("one past"));
      } catch (error) {
        refused = error;
      }
      expect(refused).toMatchObject({ code: "RATE_LIMITED", status: 429 });
      const answers = await Promise.all(waiting);
      expect(answers.every((a) => a.status === 200 && a.body === "released")).toBe(true);
      expect(await supervisor.forward("hook", request("room again"))).toMatchObject({ status: 200, body: "room again" });
    } finally {
      await supervisor.stop();
    }
  });

  test(`a forwarded request not answered within the wait (${CHANNEL_HTTP_TIMEOUT_MS} ms; shorter here) is 504; one answered is delivered`, async () => {
    const { supervisor, running } = start({ FAKE_RELEASE_AT: "1000" }, { httpTimeoutMs: 1000 });
    try {
      await running();
      const held = supervisor.forward("hook", request("hold"));
      const answered: ForwardedResponse = await supervisor.forward("hook", request("quick"));
      expect(answered).toMatchObject({ status: 200, body: "quick" });
      const timedOut = await held;
      expect(timedOut.status).toBe(504);
      expect(JSON.parse(timedOut.body).error).toBe("channel hook did not answer within 1000 ms");
    } finally {
      await supervisor.stop();
    }
  });

  test(`a process that exits when asked to stop is not killed; one that has not exited after the limit (${CHANNEL_KILL_AFTER_MS} ms; shorter here) is`, async () => {
    const polite = start({});
    await polite.running();
    const politePid = polite.supervisor.list()[0]!.pid!;
    await polite.supervisor.stop();
    expect(alive(politePid)).toBe(false);
    expect(polite.warnings.filter((w) => w.includes("did not stop"))).toEqual([]);
    expect(polite.supervisor.list()[0]!.state).toBe("stopped");

    const stuck = start({ FAKE_IGNORE_STOP: "1" }, { killAfterMs: 200 });
    await stuck.running();
    const stuckPid = stuck.supervisor.list()[0]!.pid!;
    await stuck.supervisor.stop();
    expect(alive(stuckPid)).toBe(false);
    expect(stuck.warnings).toContain("channel hook did not stop within 200 ms; killing it (its unanswered messages are answered at the next start)");
  });
});
