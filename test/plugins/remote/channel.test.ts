import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { LineDecoder } from "../../../src/plugins/remote/protocol/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "../../../src/plugins/remote/limits.ts";
import { pluginEnvironment } from "../../../src/plugins/remote/transport/transport.ts";
import { PROBE } from "./helpers.ts";

/** Bad input from the host side reaches the worker side's real transports (stdin lines, postMessage strings). */
const config = { name: "probe", entry: PROBE, settings: { API_TOKEN: "t", PATH_EXTRA: "x" }, rpcTimeoutMs: 5000 };
const echoCall = (requestId: number, pad = 0) =>
  JSON.stringify({
    type: "worker-rpc",
    requestId,
    surface: "service",
    target: "service:ECHO.echo",
    args: { args: ["p".repeat(pad)] },
  });
const atLimitCall = (requestId: number) => echoCall(requestId, REMOTE_MAX_MESSAGE_BYTES - echoCall(requestId).length);
const bad = ["this is not json", JSON.stringify({ type: "who-knows" }), "q".repeat(REMOTE_MAX_MESSAGE_BYTES + 1)];

type Msg = { type: string; requestId?: number; ok?: boolean; fields?: { kind?: string }; payload?: unknown };
const hostReply = (m: Msg) =>
  JSON.stringify({ type: "host-rpc-result", requestId: m.requestId, ok: true, payload: null });

function expectRefusedThenServed(messages: Msg[]) {
  const logs = messages.filter((m) => m.type === "log");
  expect(logs.map((m) => m.fields?.kind)).toEqual(["malformed", "malformed", "oversize"]);
  const results = messages.filter((m) => m.type === "worker-rpc-result");
  expect(results.map((m) => [m.requestId, m.ok])).toEqual([
    [1, true],
    [2, true],
  ]);
  expect((results[1]!.payload as string).length).toBeGreaterThan(REMOTE_MAX_MESSAGE_BYTES - 200);
}

describe("worker side refuses bad host input", () => {
  test("stdio: malformed and oversize lines are counted and reported; a line at the limit is served", async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../../src/plugins/remote/child-main.ts")], {
      env: pluginEnvironment(config, true),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const messages: Msg[] = [];
    let onMessage = () => {};
    const decoder = new LineDecoder(
      (l) => {
        const m = JSON.parse(l) as Msg;
        // init calls runtime.setSetting: play the host
        if (m.type === "host-rpc") (proc.stdin.write(hostReply(m) + "\n"), proc.stdin.flush());
        else messages.push(m);
        onMessage();
      },
      () => {},
    );
    void (async () => {
      for await (const chunk of proc.stdout) decoder.push(chunk);
    })();
    const until = (test: () => boolean) =>
      new Promise<void>((resolve) => {
        onMessage = () => test() && resolve();
        if (test()) resolve();
      });
    await until(() => messages.some((m) => m.type === "init-complete"));
    for (const line of bad) proc.stdin.write(line + "\n");
    proc.stdin.write(echoCall(1) + "\n" + atLimitCall(2) + "\n");
    proc.stdin.flush();
    await until(() => messages.filter((m) => m.type === "worker-rpc-result").length === 2);
    expectRefusedThenServed(
      messages.filter((m) => !m.type.startsWith("worker-announce") && m.type !== "init-complete"),
    );
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stderr).text()).toContain("refused oversize message from host");
  });

  test("worker: malformed, non-string and oversize messages are counted and reported", async () => {
    const worker = new Worker(
      new URL("../../../src/plugins/remote/worker-runtime/worker-entry.ts", import.meta.url).href,
      {
        env: pluginEnvironment(config, false),
      } as WorkerOptions,
    );
    const messages: Msg[] = [];
    let onMessage = () => {};
    worker.onmessage = (e: MessageEvent) => {
      const m = JSON.parse(e.data as string) as Msg;
      if (m.type === "host-rpc") worker.postMessage(hostReply(m));
      else messages.push(m);
      onMessage();
    };
    const until = (test: () => boolean) =>
      new Promise<void>((resolve) => {
        onMessage = () => test() && resolve();
        if (test()) resolve();
      });
    try {
      await until(() => messages.some((m) => m.type === "init-complete"));
      for (const text of bad) worker.postMessage(text);
      worker.postMessage(echoCall(1));
      worker.postMessage(atLimitCall(2));
      worker.postMessage({ not: "a string" });
      await until(() => messages.filter((m) => m.type === "log").length === 4);
      const relevant = messages.filter((m) => m.type === "log" || m.type === "worker-rpc-result");
      expectRefusedThenServed(relevant.slice(0, 5));
      expect(relevant[5]?.fields?.kind).toBe("malformed");
    } finally {
      worker.terminate();
    }
  });

  test("the subprocess environment has no inherited secrets, only settings and launch data", () => {
    process.env.PRX_TEST_SECRET_KEY = "sk-should-not-leak";
    process.env.BUN_BE_BUN = "1";
    try {
      const env = pluginEnvironment({ ...config, settings: { API_TOKEN: "t", PATH: "/evil", BUN_BE_BUN: "1" } }, true);
      expect(env.PRX_TEST_SECRET_KEY).toBeUndefined();
      expect(env.BUN_BE_BUN).toBeUndefined();
      expect(env.API_TOKEN).toBe("t");
      expect(env.PATH).toBe(process.env.PATH!);
      expect(env.PRX_REMOTE_PLUGIN_CHANNEL).toBe("stdio");
      expect(JSON.parse(env.PRX_REMOTE_PLUGIN_LAUNCH!).entry).toBe(PROBE);
    } finally {
      delete process.env.PRX_TEST_SECRET_KEY;
      delete process.env.BUN_BE_BUN;
    }
  });
});
