/**
 * A plugin subprocess dies with its host, even while it spins at 100 % CPU; what it starts (escaped from its process
 * group or not) dies with it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { alive, startHostileGateway } from "./gateway.ts";

const ROOT = join(import.meta.dir, "../../..");
const cleanup: Array<() => unknown> = [];
beforeAll(() => ensureBinary(), 300_000);
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** Poll every 20 ms, at most `ms`, until `pid` is gone. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > end) return false;
    await Bun.sleep(20);
  }
  return true;
}

test("SIGKILL of the gateway (the binary) while its plugin subprocess spins: within 2 s no child remains", async () => {
  const gw = await startHostileGateway({ binary: BINARY, plugin: { transport: "process", rpcTimeoutMs: 60_000 } });
  cleanup.push(() => gw.stop());
  const { pid } = await gw.remote();
  expect(pid).toBeNumber();
  cleanup.push(() => alive(pid!) && process.kill(pid!, "SIGKILL"));
  const spinning = gw.get("/plugins/hostile/spin?ms=60000").catch((error: unknown) => error);
  // the child is busy once its CPU time grows
  const cpu = () => Bun.file(`/proc/${pid}/stat`).text().then((s) => Number(s.split(") ")[1]!.split(" ")[11]));
  const before = await cpu();
  for (let i = 0; i < 200 && (await cpu()) - before < 20; i++) await Bun.sleep(20);
  expect((await cpu()) - before).toBeGreaterThanOrEqual(20);
  gw.proc.kill("SIGKILL");
  await gw.proc.exited;
  expect(await goneWithin(pid!, 2_000)).toBe(true);
  await spinning;
}, 60_000);

test("without PR_SET_PDEATHSIG the watchdog thread kills a spinning child once its parent is gone", async () => {
  // parent -> child: the child starts the watchdog for its parent and spins; the parent prints the child's pid
  const child = `
    import { startParentWatchdog } from ${JSON.stringify(join(ROOT, "src/core/supervise/parent-death.ts"))};
    startParentWatchdog(process.ppid, 100);
    await Bun.sleep(50);
    for (;;) {}
  `;
  const parent = `
    const child = Bun.spawn([process.execPath, "-e", ${JSON.stringify(child)}], { stdio: ["ignore", "ignore", "inherit"] });
    console.log(child.pid);
    await Bun.sleep(60_000);
  `;
  const proc = Bun.spawn([process.execPath, "-e", parent], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
  cleanup.push(() => alive(pid) && process.kill(pid, "SIGKILL"));
  await Bun.sleep(300);
  expect(alive(pid)).toBe(true);
  proc.kill("SIGKILL");
  await proc.exited;
  expect(await goneWithin(pid, 2_000)).toBe(true);
}, 30_000);

/** Poll every 50 ms, at most `ms`, until the plugin runs again under a pid other than `before`. */
async function restartedWithin(gw: Awaited<ReturnType<typeof startHostileGateway>>, before: number, ms: number): Promise<number | null> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const { state, pid } = await gw.remote();
    if (pid && pid !== before && state === "ready") return pid;
    await Bun.sleep(50);
  }
  return null;
}

test("a plugin subprocess that starts 3 children (one setsid, one double-forked) and exits, 5 times: none survives", async () => {
  const gw = await startHostileGateway({ binary: BINARY, plugin: { transport: "process" } });
  cleanup.push(() => gw.stop());
  const children: number[] = [];
  cleanup.push(() => children.filter(alive).forEach((pid) => process.kill(pid, "SIGKILL")));
  let { pid } = await gw.remote();
  for (let round = 0; round < 5; round++) {
    const response = await gw.get("/plugins/hostile/escape?exit=1");
    expect(response.status).toBe(200);
    const pids = String(((await response.json()) as { result: string }).result).split(",").map(Number);
    expect(pids).toHaveLength(3);
    children.push(...pids);
    const next = await restartedWithin(gw, pid!, 15_000);
    expect(next).toBeNumber();
    pid = next;
    // reaped when the plugin process exited, before it was started again
    for (const child of pids) expect(await goneWithin(child, 2_000)).toBe(true);
  }
  const last = (await (await gw.get("/plugins/hostile/escape")).json()) as { result: string };
  const running = last.result.split(",").map(Number);
  children.push(...running);
  expect(running.every(alive)).toBe(true);
  await gw.stop();
  for (const child of children) expect(await goneWithin(child, 2_000)).toBe(true);
}, 90_000);
