/**
 * Through the built binary: a hooks.json command that escapes its process group (`setsid sleep N &`) and one that
 * double-forks a daemon leave nothing running once the hook is over, whether it exited or timed out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, tempWorkspace } from "../../helpers/binary.ts";
import { processGone } from "./helpers.ts";

const leftovers: number[] = [];
const cleanup: Array<() => unknown> = [];
let fake: FakeServer;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  for (const pid of leftovers) if (!processGone(pid)) process.kill(pid, "SIGKILL");
  for (const step of cleanup.reverse()) await step();
  await fake.stop();
});

/** The escapes, each writing its pid to $OUT: a new session, a double fork; then the hook waits `then`. */
const script = (then: string) =>
  ['setsid sleep 621 >/dev/null 2>&1 < /dev/null & echo $! >> "$OUT"', '(sleep 622 >/dev/null 2>&1 < /dev/null & echo $! >> "$OUT") &', "sleep 0.2", then].join("\n");

async function pidsIn(file: string, count: number, ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  let pids: number[] = [];
  while (Date.now() < end) {
    try {
      pids = readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      // not written yet
    }
    if (pids.length >= count) break;
    await Bun.sleep(20);
  }
  leftovers.push(...pids);
  return pids;
}

async function goneWithin(pids: number[], ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!pids.every(processGone)) {
    if (Date.now() > end) return false;
    await Bun.sleep(20);
  }
  return true;
}

test("a hook's setsid and double-forked children die when it exits and when it times out", async () => {
  const ws = tempWorkspace(fakeProviderConfig(fake.url));
  cleanup.push(() => ws.cleanup());
  const exited = join(ws.dir, "exited.pids");
  const timedOut = join(ws.dir, "timed-out.pids");
  writeFileSync(
    join(ws.dir, "hooks.json"),
    JSON.stringify({
      hooks: {
        agent_end: [
          { command: "/bin/sh", args: ["-c", script("exit 0")], env: { OUT: exited } },
          { command: "/bin/sh", args: ["-c", script("sleep 30")], env: { OUT: timedOut }, timeout_ms: 1500 },
        ],
      },
    }),
  );
  const created = await runPrx(["gateway", "token", "create", "-w", ws.dir], { env: { HOME: ws.dir, PRX_LOG: "error" } });
  expect(created.code).toBe(0);
  const token = created.stdout.trim();
  const gw = await startGatewayBinary(ws.dir, { PRX_LOG: "error" }, "listening");
  cleanup.push(async () => {
    if (gw.proc.exitCode === null) gw.proc.kill("SIGKILL");
    await gw.proc.exited;
  });
  const turn = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(turn.status).toBe(200);

  const fromExited = await pidsIn(exited, 2, 10_000);
  expect(fromExited).toHaveLength(2);
  expect(await goneWithin(fromExited, 5_000)).toBe(true);

  const fromTimedOut = await pidsIn(timedOut, 2, 10_000);
  expect(fromTimedOut).toHaveLength(2);
  // alive while the hook runs; gone once its 1.5 s timeout kills it
  expect(await goneWithin(fromTimedOut, 8_000)).toBe(true);

  gw.proc.kill("SIGTERM");
  await gw.proc.exited;
}, 60_000);
