/** What status says while a plugin is cancelled, killed, restarted or given up on: the state and the live pid. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";
import { remoteInfo } from "../../../src/plugins/remote/info.ts";
import { REMOTE_MAX_RESTARTS_PER_MINUTE } from "../../../src/plugins/remote/limits.ts";
import type { RemoteStatus } from "../../../src/plugins/remote/types.ts";
import { startHostile, TRANSPORTS, type Hostile } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";

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

/** Every distinct (state, pid) the plugin shows until `done` settles, polled every 2 ms. */
async function watch(h: Hostile, done: Promise<unknown>): Promise<Array<Pick<RemoteStatus, "state" | "pid">>> {
  const seen: Array<Pick<RemoteStatus, "state" | "pid">> = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    const { state, pid } = h.handle.status();
    const last = seen.at(-1);
    if (!last || last.state !== state || last.pid !== pid) seen.push({ state, pid });
    await Bun.sleep(2);
  }
  return seen;
}

describe.each(TRANSPORTS)("status of a hung plugin over %s", (transport) => {
  test("cancelling during the grace, restarting with no pid, then ready with a new one; a call made meanwhile waits", async () => {
    // the grace is shorter than the call timeout, so the call made during it can wait for the restart
    const h = await start(transport, { rpcTimeoutMs: 2_000, cancelGraceMs: 500 });
    const firstPid = h.handle.status().pid;
    expect(firstPid === null).toBe(transport === "worker");
    const spun = await h.act("SPIN", { ms: 30_000 });
    expect(spun.error).toContain("did not answer within 2000 ms and was cancelled");
    const during = h.handle.status();
    expect([during.state, during.pid]).toEqual(["cancelling", firstPid]);
    expect(during.lastEvent).toBe("cancelling action action:SPIN: timed out after 2000 ms");

    const waiting = h.act("NOOP");
    const seen = await watch(h, waiting);
    expect((await waiting).output).toBe("ok");
    expect(seen[0]).toEqual({ state: "cancelling", pid: firstPid });
    expect(seen).toContainEqual({ state: "restarting", pid: null });
    const after = h.handle.status();
    expect(after).toMatchObject({ state: "ready", restarts: 1 });
    if (transport === "process") expect(after.pid).not.toBe(firstPid);
    expect(after.lastError).toBe(
      "killed: it did not acknowledge the cancel of action action:SPIN within 500 ms (hung)",
    );
    expect(after.lastEvent).toBe("ready");
  }, 30_000);

  test("a cancel the plugin acknowledges brings it back to ready without a restart", async () => {
    const h = await start(transport, { rpcTimeoutMs: 100 });
    expect((await h.act("WAIT", { ms: 10_000 })).error).toContain("was cancelled");
    await waitFor(() => h.handle.status().state === "ready", "ready again", 5_000);
    expect(h.handle.status()).toMatchObject({ restarts: 0, lastEvent: "ready: cancel acknowledged" });
  }, 30_000);
});

test(`after ${REMOTE_MAX_RESTARTS_PER_MINUTE} restarts in a minute the plugin is failed, with no pid, in the API's shape too`, async () => {
  const h = await start("process");
  for (let i = 0; i <= REMOTE_MAX_RESTARTS_PER_MINUTE; i++) {
    await waitFor(() => h.handle.status().state === "ready", `ready before exit ${i + 1}`, 10_000);
    await h.act("EXIT");
    await waitFor(() => h.handle.status().state !== "ready", `exit ${i + 1} noticed`, 10_000);
  }
  await waitFor(() => h.handle.status().state === "failed", "failed", 10_000);
  const info = remoteInfo(h.handle);
  expect([info.state, info.pid, info.last_event, info.restarts]).toEqual([
    "failed",
    null,
    "failed",
    REMOTE_MAX_RESTARTS_PER_MINUTE,
  ]);
  expect(info.last_error).toContain(`gave up after ${REMOTE_MAX_RESTARTS_PER_MINUTE} restarts in a minute`);
  expect((await h.act("NOOP")).error).toContain("remote plugin hostile has failed");
}, 60_000);
