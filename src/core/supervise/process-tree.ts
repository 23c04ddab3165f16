import { readdirSync, readFileSync } from "node:fs";
import { createChildCgroup, type ChildCgroup } from "./cgroup.ts";
import { prctl, PR_SET_CHILD_SUBREAPER } from "./prctl.ts";
import { reapAdopted } from "./waitpid.ts";

/**
 * The environment variable that marks every process a supervised child starts: the owner tokens of each supervisor
 * above it, space-separated. Children inherit it through fork, setsid and double forks alike, so what escaped the
 * process group can still be told apart from processes prx does not own.
 */
export const PROCESS_OWNERS_ENV = "PRX_PROCESS_OWNERS";
/** Sweeps of /proc per reap: a process may fork while the first sweep passes it; later sweeps find the child. */
export const REAP_MAX_SWEEPS = 5;
/** Pause between sweeps, so a process between fork and exec (or a setsid(1) handing over) is caught. */
export const REAP_SWEEP_PAUSE_MS = 20;
/** How long reap() waits for killed orphans re-parented to prx to exit, so none is left a zombie. */
export const REAP_ZOMBIE_WAIT_MS = 500;

let subreaper: Promise<boolean> | undefined;

/**
 * Make this process the child subreaper (Linux): a descendant whose parent exits (a double fork, `setsid cmd &`) is
 * re-parented to prx instead of init, stays in prx's tree and is reaped by it. Once per process; false off Linux.
 */
export function becomeSubreaper(): Promise<boolean> {
  return (subreaper ??= prctl(PR_SET_CHILD_SUBREAPER, 1));
}

const live = new Set<ProcessTree>();
let exitHooked = false;
let trees = 0;

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // ESRCH: gone already; EPERM: not ours (a recycled pid of another user)
  }
}

/** Pids of processes whose PROCESS_OWNERS_ENV holds `token` (unreadable ones are not ours: skipped). */
function markedWith(token: string): number[] {
  if (process.platform !== "linux") return [];
  const needle = `${PROCESS_OWNERS_ENV}=`;
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, "latin1");
    } catch {
      continue;
    }
    const at = environ.indexOf(needle);
    if (at === -1) continue;
    const end = environ.indexOf("\0", at);
    const owners = environ.slice(at + needle.length, end === -1 ? undefined : end).split(" ");
    if (owners.includes(token)) found.push(pid);
  }
  return found;
}

/**
 * Everything one supervised child starts, and how it all ends together: the child leads its own process group
 * (spawn it with `detached: true`), runs in a cgroup of its own where one is available, and every descendant carries
 * this tree's token in PROCESS_OWNERS_ENV. reap() kills the group, the cgroup and every marked process, so nothing a
 * plugin, hook, MCP server or channel starts outlives it; should prx exit first, the remaining trees are reaped then.
 */
export class ProcessTree {
  readonly token: string;
  private pid: number | null = null;
  private cgroup: ChildCgroup | null = null;
  /** The cgroup being made, then the child being moved into it (both off the event loop). */
  private settling: Promise<unknown>;

  constructor(readonly label: string) {
    this.token = `${process.pid}.${++trees}`;
    // made while the child is spawned; a child that forks before it is moved in is still found by its mark
    this.settling = createChildCgroup(label).then((cgroup) => (this.cgroup = cgroup));
    live.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once("exit", () => {
        for (const tree of live) tree.reapNow();
      });
    }
  }

  /** The child's environment: `env` with this tree's token added to the owners prx itself runs under. */
  env(env: Record<string, string | undefined>): Record<string, string | undefined> {
    const above = process.env[PROCESS_OWNERS_ENV];
    return { ...env, [PROCESS_OWNERS_ENV]: above ? `${above} ${this.token}` : this.token };
  }

  /** The spawned child: moved into its cgroup (when there is one) and remembered as its group's leader. */
  adopt(pid: number): void {
    this.pid = pid;
    this.settling = this.settling.then(async () => {
      if (this.cgroup && !(await this.cgroup.add(pid))) {
        this.cgroup.remove();
        this.cgroup = null;
      }
    });
  }

  /** Where the child runs: its cgroup's path, or null without one. */
  get cgroupPath(): string | null {
    return this.cgroup?.path ?? null;
  }

  /**
   * SIGKILL the child's process group, its cgroup and every process marked with this tree's token, sweeping until a
   * sweep finds none (at most REAP_MAX_SWEEPS). Resolves with how many marked processes were killed.
   */
  async reap(): Promise<number> {
    const killed = new Set<number>();
    const sweep = () => {
      const marked = this.killOnce();
      for (const pid of marked) killed.add(pid);
      return marked.length;
    };
    await this.settling;
    // nothing marked and nothing in the cgroup: no process is in transit either (a fork keeps the mark)
    const first = sweep();
    for (let round = 1; first > 0 && round < REAP_MAX_SWEEPS; round++) {
      await Bun.sleep(REAP_SWEEP_PAUSE_MS);
      if (sweep() === 0) break;
    }
    // the child itself is Bun's to wait for; what it left behind and prx adopted is ours
    let waiting = [...killed].filter((pid) => pid !== this.pid);
    const deadline = performance.now() + REAP_ZOMBIE_WAIT_MS;
    while (waiting.length > 0 && performance.now() < deadline) {
      waiting = await reapAdopted(waiting);
      if (waiting.length > 0) await Bun.sleep(REAP_SWEEP_PAUSE_MS);
    }
    this.release();
    return killed.size;
  }

  /**
   * reap() without the pauses between sweeps, for process exit (nothing asynchronous runs then; a cgroup still
   * being made is removed by the next prx to start, see cgroup.ts).
   */
  reapNow(): number {
    let killed = 0;
    for (let sweep = 0; sweep < REAP_MAX_SWEEPS; sweep++) {
      const more = this.killOnce().length;
      killed += more;
      if (more === 0) break;
    }
    this.release();
    return killed;
  }

  /** One sweep: the group, the cgroup, then each marked process; returns the marked pids it signalled. */
  private killOnce(): number[] {
    // found before the group and cgroup kills: a killed process shows an empty environ
    const marked = [...new Set([...markedWith(this.token), ...(this.cgroup?.pids() ?? [])])].filter((pid) => pid !== process.pid);
    if (this.pid !== null) {
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is empty
      }
    }
    this.cgroup?.kill();
    for (const pid of marked) killQuietly(pid);
    return marked;
  }

  private release(): void {
    if (this.cgroup?.remove()) this.cgroup = null;
    if (!this.cgroup) live.delete(this);
  }
}
