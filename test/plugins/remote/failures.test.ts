import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import {
  REMOTE_CANCEL_GRACE_MS,
  REMOTE_MAX_RESTARTS_PER_MINUTE,
  type RemotePluginHandle,
} from "../../../src/plugins/remote/index.ts";
import { waitFor } from "../../helpers/wait.ts";
import { FIXTURES, hostFixture, startProbe, toolContext, type Transport } from "./helpers.ts";

const running: RemotePluginHandle[] = [];
const hosts: Array<ReturnType<typeof hostFixture>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.shutdown()));
  for (const h of hosts.splice(0)) h.close();
});

async function start(transport: Transport, extra: Parameters<typeof startProbe>[2] = {}) {
  const host = hostFixture();
  hosts.push(host);
  const handle = await startProbe(host, transport, extra);
  running.push(handle);
  const call = (name: string, args: Record<string, unknown> = {}, sent: string[] = []) =>
    handle
      .tools()
      .find((t) => t.spec.name === name)!
      .execute(args, toolContext(sent));
  return { host, handle, call };
}

/** Poll until `condition` holds (the test's own timeout bounds the wait). */
async function startError(transport: Transport, extra: Parameters<typeof startProbe>[2]) {
  const host = hostFixture();
  hosts.push(host);
  return startProbe(host, transport, extra).then(
    (h) => (running.push(h), null),
    (e: unknown) => e,
  );
}

describe.each(["worker", "process"] as Transport[])("failures over %s", (transport) => {
  test("init failure rejects the start with the plugin's error", async () => {
    const error = await startError(transport, { settings: { FAIL_INIT: "1" } });
    expect(isPrxError(error, "PLUGIN_LOAD")).toBe(true);
    expect(String((error as Error).message)).toContain("init refused: FAIL_INIT is set");
  });

  test("an entry that throws while loading, or exports no plugin, fails to start", async () => {
    const thrown = await startError(transport, { entry: join(FIXTURES, "bad-import.ts") });
    expect(String((thrown as Error).message)).toContain("this entry fails while loading");
    const empty = await startError(transport, { entry: join(FIXTURES, "no-plugin.ts") });
    expect(String((empty as Error).message)).toContain("neither called bootstrap(plugin) nor exports a plugin");
  });

  test("a plugin not ready within ready_timeout_ms fails with PLUGIN_TIMEOUT", async () => {
    const error = await startError(transport, { settings: { SLOW_INIT: "3000" }, readyTimeoutMs: 100 });
    expect(isPrxError(error, "PLUGIN_TIMEOUT")).toBe(true);
  });

  test("an entry importing @elizaos/plugin-worker-runtime and bootstrapping itself works", async () => {
    const { call } = await start(transport, { entry: join(FIXTURES, "eliza-style.ts"), name: "eliza-style" });
    expect((await call("HELLO", { text: "world" })).output).toBe("hello world");
  });

  test("a crash fails the pending call clearly and the plugin is restarted", async () => {
    const { handle, call } = await start(transport);
    const crashed = await call("CRASH");
    const slept = await call("SLEEP", { ms: 5000 });
    expect(crashed.success).toBe(true);
    expect(slept.success).toBe(false);
    // the crash lands while the call composes its state (the plugin's providers) or runs the action itself
    expect(slept.error).toMatch(/^remote plugin probe crashed during (action action:SLEEP|provider provider:\w+) /);
    await handle.ready();
    expect(handle.status()).toMatchObject({ state: "ready", restarts: 1 });
    expect((await call("SLEEP", { ms: 1 })).output).toBe("slept");
  });

  test("a hung async call times out, is cancelled, and the plugin keeps serving", async () => {
    const { handle, call } = await start(transport, { rpcTimeoutMs: 100 });
    const hung = await call("HANG");
    expect(hung.success).toBe(false);
    expect(hung.error).toContain("did not answer within 100 ms and was cancelled");
    expect((await call("SLEEP", { ms: 1 })).output).toBe("slept");
    await Bun.sleep(REMOTE_CANCEL_GRACE_MS + 100);
    expect(handle.status()).toMatchObject({ state: "ready", restarts: 0, timeouts: 1 });
  });

  test("a plugin stuck in a synchronous loop is killed after the cancel grace and restarted", async () => {
    const { handle, call } = await start(transport, { rpcTimeoutMs: 100 });
    const spun = await call("SPIN");
    expect(spun.error).toContain("was cancelled");
    await waitFor(() => handle.status().restarts === 1);
    await handle.ready();
    expect(handle.status().restarts).toBe(1);
    expect((await call("SLEEP", { ms: 1 })).output).toBe("slept");
  });

  test("malformed and oversize messages from the plugin are refused, counted, and do not break the call", async () => {
    const { handle, call } = await start(transport);
    expect((await call("GARBAGE")).output).toBe("garbage sent");
    const s = handle.status();
    expect(s.oversize).toBe(1);
    expect(s.malformed).toBe(transport === "worker" ? 3 : 2);
    expect(s.lastError).toContain("refused");
    expect((await call("SLEEP", { ms: 1 })).output).toBe("slept");
  });

  test("shutdown waits its grace for a call that never ends, then stops the plugin and fails the call", async () => {
    const { handle, call } = await start(transport, { shutdownGraceMs: 100 });
    const hung = call("HANG");
    await Bun.sleep(20);
    await handle.shutdown();
    expect(handle.status().state).toBe("stopped");
    const result = await hung;
    expect(result.success).toBe(false);
    expect(result.error).toContain("remote plugin probe was shut down while action action:HANG was running");
  });

  test("shutdown lets in-flight calls finish, then refuses new ones", async () => {
    const { handle, call } = await start(transport);
    const sent: string[] = [];
    const inflight = call("SLEEP", { ms: 150, announce: true }, sent);
    // the action runs (its state composed first): shut down while its handler sleeps
    await waitFor(() => sent.includes("sleeping") || undefined);
    await handle.shutdown();
    expect((await inflight).output).toBe("slept");
    expect(handle.status().state).toBe("stopped");
    const after = await call("SLEEP", { ms: 1 });
    expect(after.error).toContain("shut down");
  });
});

test("a plugin spamming console.log in stdio mode does not corrupt the protocol", async () => {
  const { handle, call } = await start("process");
  expect((await call("SPAM", { lines: 5000 })).output).toBe("spammed");
  expect((await call("RAW_STDOUT")).output).toBe("wrote");
  expect(handle.status()).toMatchObject({ malformed: 0, oversize: 0, state: "ready" });
});

test(`more than ${REMOTE_MAX_RESTARTS_PER_MINUTE} crashes in a minute leave the plugin in status failed`, async () => {
  const { handle, call } = await start("worker");
  for (let i = 1; i <= REMOTE_MAX_RESTARTS_PER_MINUTE; i++) {
    await call("CRASH");
    await waitFor(() => handle.status().restarts === i);
    await handle.ready();
  }
  await call("CRASH");
  await waitFor(() => handle.status().state === "failed");
  expect(handle.status().restarts).toBe(REMOTE_MAX_RESTARTS_PER_MINUTE);
  const refused = await call("SLEEP", { ms: 1 });
  expect(refused.error).toContain("has failed: gave up after");
  // five real restart backoffs (~3 s) and five Worker starts: more than the default 5 s on a loaded machine
}, 30_000);
