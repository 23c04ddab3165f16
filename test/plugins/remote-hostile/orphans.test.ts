/** A plugin subprocess dies with its host, even while it spins at 100 % CPU. */
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
