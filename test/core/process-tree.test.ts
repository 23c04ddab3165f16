/** A supervised child's process tree ends with it: the setsid and double-fork escapes included. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { becomeSubreaper, cgroupSupport, PROCESS_OWNERS_ENV, ProcessTree } from "../../src/core/supervise/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-process-tree-"));
const started: number[] = [];
afterAll(() => {
  for (const pid of started) if (running(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** A live process, not a zombie waiting for its reaper. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

function existing(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

/** Start `sh -c script` in a tree; the script writes the pids of what it leaves behind, one per line, to `file`. */
async function escapeFrom(tree: ProcessTree, script: string, file: string): Promise<number[]> {
  const child = Bun.spawn(["sh", "-c", script], {
    env: tree.env({ PATH: process.env.PATH, OUT: file }) as Record<string, string>,
    stdio: ["ignore", "ignore", "ignore"],
    detached: true,
  });
  tree.adopt(child.pid);
  expect(await child.exited).toBe(0);
  let pids: number[] = [];
  for (let i = 0; i < 200 && pids.length < 2; i++) {
    await Bun.sleep(20);
    pids = (await Bun.file(file).text().catch(() => "")).split("\n").filter(Boolean).map(Number);
  }
  started.push(...pids);
  return pids;
}

const ESCAPES = [
  // a new session of its own (out of the process group), and a double fork whose middle process exits
  'setsid sleep 621 >/dev/null 2>&1 & echo $! >> "$OUT"',
  '(sleep 622 >/dev/null 2>&1 & echo $! >> "$OUT") &',
].join("\n");

describe("ProcessTree", () => {
  test.skipIf(process.platform !== "linux")("prx is the subreaper: escaped grandchildren are re-parented to it", async () => {
    expect(await becomeSubreaper()).toBe(true);
    const tree = new ProcessTree("test-reparent");
    const pids = await escapeFrom(tree, ESCAPES, join(dir, "reparent"));
    expect(pids).toHaveLength(2);
    for (const pid of pids) {
      expect(running(pid)).toBe(true);
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])).toBe(process.pid);
      expect(readFileSync(`/proc/${pid}/environ`, "latin1")).toContain(`${PROCESS_OWNERS_ENV}=${tree.token}`);
    }
    await tree.reap();
    // killed and collected: no zombie is left in prx's table either
    for (const pid of pids) expect(existing(pid)).toBe(false);
  });

  test.skipIf(process.platform !== "linux")("reap() ends the setsid and double-fork escapes, and only this tree's", async () => {
    await becomeSubreaper();
    const mine = new ProcessTree("test-mine");
    const other = new ProcessTree("test-other");
    const escaped = await escapeFrom(mine, ESCAPES, join(dir, "mine"));
    const kept = await escapeFrom(other, ESCAPES, join(dir, "other"));
    expect(await mine.reap()).toBeGreaterThanOrEqual(0);
    for (const pid of escaped) expect(running(pid)).toBe(false);
    for (const pid of kept) expect(running(pid)).toBe(true);
    await other.reap();
    for (const pid of kept) expect(running(pid)).toBe(false);
  });

  test.skipIf(process.platform !== "linux")("without the owner mark (env cleared), the cgroup still holds what escaped", async () => {
    if (!cgroupSupport().available) return; // the mark and the group are all there is then
    await becomeSubreaper();
    const tree = new ProcessTree("test-cgroup");
    // the move into the cgroup lands a few ms after the spawn (a cgroup migration waits for RCU): fork after it
    const unmarked = ESCAPES.replaceAll("setsid sleep", "env -i setsid sleep").replaceAll("(sleep", "(env -i sleep");
    const pids = await escapeFrom(tree, `sleep 0.3\n${unmarked}`, join(dir, "cgroup"));
    expect(tree.cgroupPath).not.toBeNull();
    for (const pid of pids) expect(readFileSync(`/proc/${pid}/environ`, "latin1")).not.toContain(PROCESS_OWNERS_ENV);
    await tree.reap();
    for (const pid of pids) expect(existing(pid)).toBe(false);
  });
});
