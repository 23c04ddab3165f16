import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  HOOK_PAYLOAD_MAX_BYTES,
  HOOK_STDERR_MAX_BYTES,
  HOOK_STDOUT_MAX_BYTES,
  HOOK_TIMEOUT_DEFAULT_MS,
} from "../../../src/plugins/hooks/index.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { hooksFixture, processGone } from "./helpers.ts";
import type { HooksFixture } from "./helpers.ts";

let fx: HooksFixture;
afterEach(() => fx.cleanup());

const sh = (script: string, extra: Record<string, unknown> = {}) => ({ command: "sh", args: ["-c", script], ...extra });

describe("hook execution", () => {
  test("payload on stdin and in a 0600 file named by PRX_HOOK_PAYLOAD_FILE; PRX_HOOK_EVENT names the event", async () => {
    fx = hooksFixture({
      hooks: {
        agent_end: [
          sh(
            'printf "%s|%s|%s|" "$PRX_HOOK_EVENT" "$(cat)" "$(cat "$PRX_HOOK_PAYLOAD_FILE")"; ' +
              'stat -c %a "$PRX_HOOK_PAYLOAD_FILE"; printf "%s" "$GREETING"',
            {
              env: { GREETING: "hi" },
            },
          ),
        ],
      },
    });
    const { event, topic, results } = await fx.manager.dispatch("Agent-End", { turn: 1 });
    expect(event).toBe("agent_end");
    expect(topic).toBe("prx.lifecycle.agent_stop");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ ok: true, exitCode: 0, timedOut: false, key: "agent_end" });
    expect(results[0]!.stdout).toBe('agent_end|{"turn":1}|{"turn":1}|600\nhi');
    expect(fx.payloadFiles()).toEqual([]);
  });

  test("stdin_json = false gives the hook no stdin; the payload file is still there", async () => {
    fx = hooksFixture({
      hooks: { x: [sh('printf "[%s]" "$(cat)"; cat "$PRX_HOOK_PAYLOAD_FILE"', { stdin_json: false })] },
    });
    const { results } = await fx.manager.dispatch("x", [1, 2]);
    expect(results[0]!.stdout).toBe("[][1,2]");
  });

  test("no shell: arguments reach the program verbatim", async () => {
    fx = hooksFixture({ hooks: { x: [{ command: "printf", args: ["%s", "$(echo pwned); `id` > /tmp/x"] }] } });
    const { results } = await fx.manager.dispatch("x", null);
    expect(results[0]!.stdout).toBe("$(echo pwned); `id` > /tmp/x");
  });

  test("matching: legacy names, prx.lifecycle.* and * match bridged lifecycle events; relative cwd is the workspace", async () => {
    fx = hooksFixture({
      hooks: {
        agent_end: [sh("echo legacy")],
        "prx.lifecycle.agent_stop": [sh("echo exact")],
        "prx.lifecycle.*": [sh("echo prefix")],
        "*": [sh("pwd", { cwd: "payloads" })],
        message_received: [sh("echo other")],
      },
    });
    const stop = await fx.manager.dispatch("prx.lifecycle.agent_stop", {});
    expect(stop.results.map((r) => r.stdout.trim())).toEqual(["legacy", "exact", "prefix", join(fx.root, "payloads")]);
    const start = await fx.manager.dispatch("agent_start", {});
    expect(start.results.map((r) => r.key)).toEqual(["prx.lifecycle.*", "*"]);
    const custom = await fx.manager.dispatch("Message-Received", {});
    expect(custom.results.map((r) => r.key)).toEqual(["*", "message_received"]);
  });

  test("failure and spawn errors are reported, counted, and leave no payload file", async () => {
    fx = hooksFixture({
      hooks: { x: [sh("echo oops >&2; exit 3"), { command: "/nonexistent/prx-hook" }, sh("true")] },
    });
    const { results } = await fx.manager.dispatch("x", {});
    expect(results[0]).toMatchObject({ ok: false, exitCode: 3, stderr: "oops\n", error: "exited with code 3" });
    expect(results[1]).toMatchObject({ ok: false });
    expect(results[1]!.error).toContain("cannot start /nonexistent/prx-hook");
    expect(results[2]).toMatchObject({ ok: true });
    expect(fx.manager.status()).toMatchObject({ dispatched: 1, runs: 3, failures: 2 });
    expect(fx.payloadFiles()).toEqual([]);
  });

  test("the payload file is removed after success, failure and timeout", async () => {
    fx = hooksFixture({
      hooks: {
        x: [
          sh('echo "$PRX_HOOK_PAYLOAD_FILE"'),
          sh('echo "$PRX_HOOK_PAYLOAD_FILE"; exit 1'),
          sh('echo "$PRX_HOOK_PAYLOAD_FILE"; exec sleep 30', { timeout_ms: 200 }),
        ],
      },
    });
    const { results } = await fx.manager.dispatch("x", { secret: "s" });
    expect(results.map((r) => r.ok)).toEqual([true, false, false]);
    expect(results[2]!.timedOut).toBe(true);
    for (const r of results) {
      const file = r.stdout.trim();
      expect(file.startsWith(fx.payloadDir)).toBe(true);
      expect(existsSync(file)).toBe(false);
    }
    expect(fx.payloadFiles()).toEqual([]);
  });

  test("a timeout kills the hook's whole process group and reaps it", async () => {
    fx = hooksFixture({ hooks: { x: [sh("sleep 30 & echo $!; sleep 30", { timeout_ms: 300 })] } });
    const { results } = await fx.manager.dispatch("x", {});
    const r = results[0]!;
    expect(r).toMatchObject({ ok: false, timedOut: true, signal: "SIGKILL" });
    expect(r.error).toContain("timed out after 300 ms");
    const grandchild = Number(r.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(processGone(r.pid!)).toBe(true);
    expect(processGone(grandchild)).toBe(true);
  });

  test("a process left behind holding the pipes does not hold up the hook, and does not outlive it", async () => {
    fx = hooksFixture({ hooks: { x: [sh("sleep 30 & echo $!")] } });
    const { results } = await fx.manager.dispatch("x", {});
    const r = results[0]!;
    expect(r.ok).toBe(true);
    const leftover = Number(r.stdout.trim());
    expect(processGone(leftover)).toBe(true);
  });

  test(`stderr and stdout are captured up to ${HOOK_STDERR_MAX_BYTES} / ${HOOK_STDOUT_MAX_BYTES} bytes`, async () => {
    const emit = (n: number, fd = ">&2") => sh(`head -c ${n} /dev/zero | tr '\\0' e ${fd}`);
    fx = hooksFixture({
      hooks: {
        x: [
          emit(HOOK_STDERR_MAX_BYTES),
          emit(HOOK_STDERR_MAX_BYTES + 1),
          emit(1_000_000),
          emit(HOOK_STDOUT_MAX_BYTES, ""),
          emit(HOOK_STDOUT_MAX_BYTES + 1, ""),
        ],
      },
    });
    const { results } = await fx.manager.dispatch("x", {});
    expect(results.slice(0, 3).map((r) => [r.ok, r.stderr.length, r.stderrTruncated])).toEqual([
      [true, HOOK_STDERR_MAX_BYTES, false],
      [true, HOOK_STDERR_MAX_BYTES, true],
      [true, HOOK_STDERR_MAX_BYTES, true],
    ]);
    expect(results.slice(3).map((r) => [r.ok, r.stdout.length, r.stdoutTruncated])).toEqual([
      [true, HOOK_STDOUT_MAX_BYTES, false],
      [true, HOOK_STDOUT_MAX_BYTES, true],
    ]);
  });

  test(`a ${HOOK_PAYLOAD_MAX_BYTES}-byte payload is delivered; one byte more is refused`, async () => {
    fx = hooksFixture({ hooks: { x: [{ command: "wc", args: ["-c"] }] } });
    const { results } = await fx.manager.dispatch("x", "a".repeat(HOOK_PAYLOAD_MAX_BYTES - 2));
    expect(results[0]!.stdout.trim()).toBe(String(HOOK_PAYLOAD_MAX_BYTES));
    try {
      await fx.manager.dispatch("x", "a".repeat(HOOK_PAYLOAD_MAX_BYTES - 1));
      throw new Error("accepted");
    } catch (error) {
      expect(isPrxError(error, "PAYLOAD_TOO_LARGE")).toBe(true);
    }
    expect(fx.payloadFiles()).toEqual([]);
  });

  test(`the default timeout is ${HOOK_TIMEOUT_DEFAULT_MS} ms and the file-level timeout applies to every action`, async () => {
    fx = hooksFixture({ hooks: { x: [sh("true"), sh("true", { timeout_ms: 42 })] } });
    expect((await fx.manager.dispatch("x", {})).results.map((r) => r.timeoutMs)).toEqual([HOOK_TIMEOUT_DEFAULT_MS, 42]);
    fx.write({ timeout_ms: 150, hooks: { x: [sh("exec sleep 30"), sh("true", { timeout_ms: 42 })] } });
    const { results } = await fx.manager.dispatch("x", {});
    expect(results.map((r) => r.timeoutMs)).toEqual([150, 42]);
    expect(results[0]!.error).toContain("timed out after 150 ms");
  });

  test("dispatch notices an edited hooks.json", async () => {
    fx = hooksFixture({ hooks: { x: [sh("echo one")] } });
    expect((await fx.manager.dispatch("x", {})).results[0]!.stdout).toBe("one\n");
    fx.write({ hooks: { x: [sh("echo two")] } });
    expect((await fx.manager.dispatch("x", {})).results[0]!.stdout).toBe("two\n");
  });

});
