// node:fs's callbacks for the two asynchronous writes: node:fs/promises takes milliseconds to load, and every process
// that supervises children (the gateway before it listens) imports this module
import { existsSync, mkdir, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFile, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A cgroup v2 of its own for one child, where the kernel offers one we may write: every process the child starts
 * stays in it whatever it does (setsid, double fork), and `cgroup.kill` ends them all at once. Where there is no
 * writable cgroup v2 (cgroup v1 only, a read-only /sys/fs/cgroup, no cgroup.kill before Linux 5.14) children run
 * without one and the process group and the owner mark find what they leave.
 */
export interface ChildCgroup {
  readonly path: string;
  /**
   * Move `pid` into the cgroup; false when the kernel refused. Asynchronous: a migration waits for RCU (~10 ms
   * here), which would otherwise stall the event loop once per spawn.
   */
  add(pid: number): Promise<boolean>;
  /** Pids of the processes in the cgroup itself (not in cgroups below it). */
  pids(): number[];
  /** SIGKILL every process in the cgroup. */
  kill(): void;
  /** Remove the cgroup once it is empty; false while a process still exits. */
  remove(): boolean;
}

/** Where prx may create child cgroups, or why it may not; looked up once per process. */
export type CgroupSupport = { available: true; parent: string } | { available: false; reason: string };

let support: CgroupSupport | undefined;

function lookUp(): CgroupSupport {
  if (process.platform !== "linux") return { available: false, reason: "not Linux" };
  let mount: string | undefined;
  let own: string | undefined;
  try {
    // mountinfo fields: id parent major:minor root mount-point options ... - fstype source super-options
    for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
      const [before, after] = line.split(" - ");
      if (after?.startsWith("cgroup2 ")) {
        mount = before!.split(" ")[4];
        break;
      }
    }
    own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((line) => line.startsWith("0::"))
      ?.slice(3);
  } catch (error) {
    return { available: false, reason: `cannot read /proc: ${(error as Error).message}` };
  }
  if (!mount || own === undefined) return { available: false, reason: "no cgroup v2 hierarchy is mounted" };
  const parent = join(mount, own);
  const probe = join(parent, `prx-probe-${process.pid}`);
  let killable: boolean;
  try {
    mkdirSync(probe);
    // the root cgroup has no cgroup.kill; a child has one from Linux 5.14 on
    killable = existsSync(join(probe, "cgroup.kill"));
    rmdirSync(probe);
  } catch (error) {
    return { available: false, reason: `cannot create a cgroup under ${parent}: ${(error as NodeJS.ErrnoException).code}` };
  }
  if (!killable) return { available: false, reason: "cgroups have no cgroup.kill (Linux < 5.14)" };
  removeStale(parent);
  return { available: true, parent };
}

const OWN_CGROUP = /^prx-(\d+)-\d+-/;

/**
 * Cgroups left by a prx that was killed (SIGKILL runs no exit hook): whatever still runs in one escaped a dead
 * supervisor, so it is killed, and the empty cgroup removed.
 */
function removeStale(parent: string): void {
  for (const name of readdirSync(parent)) {
    const owner = OWN_CGROUP.exec(name)?.[1];
    if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
    try {
      writeFileSync(join(parent, name, "cgroup.kill"), "1");
      rmdirSync(join(parent, name));
    } catch {
      // still emptying, or another prx removed it first: the next start tries again
    }
  }
}

export function cgroupSupport(): CgroupSupport {
  return (support ??= lookUp());
}

let created = 0;

/** A new empty cgroup for one child (named after prx's pid), or null where cgroupSupport() says none. */
export async function createChildCgroup(label: string): Promise<ChildCgroup | null> {
  const found = cgroupSupport();
  if (!found.available) return null;
  const path = join(found.parent, `prx-${process.pid}-${++created}-${label.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 40)}`);
  const made = await new Promise<boolean>((resolve) => mkdir(path, (error) => resolve(!error)));
  if (!made) return null;
  const write = (file: string, value: string): boolean => {
    try {
      writeFileSync(join(path, file), value);
      return true;
    } catch {
      return false;
    }
  };
  return {
    path,
    add: (pid) => new Promise<boolean>((resolve) => writeFile(join(path, "cgroup.procs"), String(pid), (error) => resolve(!error))),
    pids: () => {
      try {
        return readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
      } catch {
        return [];
      }
    },
    kill: () => void write("cgroup.kill", "1"),
    remove: () => {
      try {
        rmdirSync(path);
        return true;
      } catch {
        return !existsSync(path);
      }
    },
  };
}
