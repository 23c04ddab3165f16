import { createLogger } from "../../../core/logger.ts";
import { SANDBOX_WORKERS } from "../limits.ts";
import { PoolWorker } from "./pool-worker.ts";
import { sandboxWorkerUrl } from "./worker-url.ts";

/** The Worker entry; `bun build --compile` must get it as an extra entrypoint (WASM_WORKER_ENTRYPOINTS). */
const WORKER_URL = sandboxWorkerUrl();

/**
 * The process's shared sandbox Workers: at most SANDBOX_WORKERS, each hosting several plugins' sandboxes (pool-worker.ts
 * and the README say how a guest is stopped without harming its neighbours). Whatever the number of plugins, the
 * threads of WASM plugins are bounded by the pool; what a plugin adds is its instances (its guests' linear memory and
 * their JS objects), not a thread and a JavaScript heap of its own.
 * - A new sandbox goes to a new Worker while fewer than SANDBOX_WORKERS exist and each has a sandbox already, else
 *   to the Worker hosting the fewest. A middleware plugin's sandbox goes to the Worker hosting middleware already:
 *   a chain calls its members one after another, so they gain nothing from parallel Workers, and in one Worker each
 *   hand-over reaches the thread that has just run the member before, its code hot. Measured on the 2-core reference
 *   VM under load (`bun run bench middleware`, runs alternated with and without the rule), runtime cost per call of a
 *   chain of 4: kit-built QuickJS 46 vs 53 us (on one CPU 52 vs 55), QuickJS 26 vs 33, WAT 19 vs 26; the Worker
 *   thread's CPU per call fell by 15-30 us. Chains of concurrent turns then share that Worker.
 * - A reloaded plugin's new sandbox goes to the Worker hosting the one it replaces (the same name and entry file):
 *   the old one leaves once the new generation is published, so the spread of plugins over Workers stays as it was,
 *   and a reload (every edit of `prx plugins dev`) neither starts a Worker nor instantiates in a cold one. Measured
 *   through the gateway on the 2-core reference VM, a kit tool plugin's reload: the sandbox's start 25-45 ms instead
 *   of 60-95, most of the difference a Worker's start.
 * - A Worker ends with its last sandbox (stopped for being idle, or released), so
 *   the components' JS it evaluated (which cannot be unloaded) and its heap go with it; the next sandbox starts a new
 *   one. A retired Worker (it has evaluated MAX_ARTIFACTS_PER_WORKER components' JS) takes no new sandbox.
 * - The pool is open while at least one sandbox holds it (`hold()`); when the last one lets go (runtime stopped,
 *   every generation released) its Workers are terminated.
 * - Every sandbox Worker is unref'd: a plugin never keeps the process alive (a call in flight does, by its timer).
 * - Nothing runs while plugins are idle: no timer, no polling (a stop's grace timer lives only while a stop is pending;
 *   a Worker watches its mailbox for SANDBOX_LINGER_US after a call only, and the main thread the Worker's answers
 *   for SANDBOX_ANSWER_WAIT_US after posting one: plugins/hop).
 */
class SandboxWorkerPool {
  private readonly workers: PoolWorker[] = [];
  private holders = 0;
  private spawned = 0;
  private nextTenant = 1;
  private readonly log = createLogger("plugins.sandbox");

  /** Keep the pool open; call the returned function (idempotent) when the sandbox is released. */
  hold(): () => void {
    this.holders++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.holders === 0) this.drain();
    };
  }

  /**
   * The Worker a new sandbox (or a new incarnation of one) goes to; `middleware`: its plugin serves middleware;
   * `lineage`: the plugin across its generations (TenantHandler.lineage).
   */
  place(middleware = false, lineage?: string): PoolWorker {
    const live = this.workers.filter((w) => !w.gone && !w.retired());
    const chainHome = middleware ? live.find((w) => w.hostsMiddleware()) : undefined;
    if (chainHome) return chainHome;
    const predecessor = lineage === undefined ? undefined : live.find((w) => w.hostsLineage(lineage));
    if (predecessor) return predecessor;
    if (live.length === 0 || (live.length < SANDBOX_WORKERS && live.every((w) => w.tenants() > 0))) return this.spawn();
    return live.reduce((a, b) => (b.tenants() < a.tenants() ? b : a));
  }

  /** Workers alive now, the sandboxes they host, pool holders, Workers started since the process began. */
  stats(): { workers: number; tenants: number; holders: number; spawned: number } {
    return {
      workers: this.workers.length,
      tenants: this.workers.reduce((sum, w) => sum + w.tenants(), 0),
      holders: this.holders,
      spawned: this.spawned,
    };
  }

  /** Resolves once every Worker alive now has started (or failed to). */
  async settled(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.booted));
  }

  private spawn(): PoolWorker {
    const worker = new PoolWorker(WORKER_URL, this.log, (gone) => {
      const at = this.workers.indexOf(gone);
      if (at >= 0) this.workers.splice(at, 1);
    }, () => this.nextTenant++);
    this.workers.push(worker);
    this.spawned++;
    return worker;
  }

  private drain(): void {
    for (const worker of [...this.workers]) worker.terminate("every plugin sandbox was released");
  }
}

export const sandboxWorkerPool = new SandboxWorkerPool();
