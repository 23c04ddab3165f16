import { SANDBOX_INIT_TIMEOUT_MS, SANDBOX_POOL_REFILL_DELAY_MS, SANDBOX_POOL_SIZE } from "../limits.ts";
import { sandboxWorkerUrl } from "./worker-url.ts";

/** The Worker entry; `bun build --compile` must get it as an extra entrypoint (WASM_WORKER_ENTRYPOINTS). */
const WORKER_URL = sandboxWorkerUrl();

interface IdleWorker {
  worker: Worker;
  booted: Promise<boolean>;
  detach(): void;
}

/**
 * Pre-started sandbox Workers (process-wide). A Worker spends most of its start evaluating the sandbox's modules;
 * the pool does that ahead of time, so a load (or a restart after a timeout) only sends init and instantiates.
 * - A taken Worker belongs to one sandbox for the rest of its life: it is never returned or shared.
 * - The pool is open while at least one sandbox holds it (`hold()`); when the last one lets go (runtime stopped,
 *   every generation released) the idle Workers are terminated.
 * - Every sandbox Worker is unref'd: a plugin never keeps the process alive (a call in flight does, by its timer).
 * - It keeps min(SANDBOX_POOL_SIZE, holders) idle Workers (~2 MB each): enough for a reload of every live plugin.
 * - Refilling starts SANDBOX_POOL_REFILL_DELAY_MS after the last taken Worker finished starting (ready or failed)
 *   and starts one Worker at a time, so it does not compete with the loads of a reload. An idle Worker that fails
 *   to boot (error, or no "booted" within SANDBOX_INIT_TIMEOUT_MS) is dropped, its error kept in stats(), and the
 *   refill stops until the next take (a sandbox taking a fresh Worker then reports the failure as PLUGIN_LOAD).
 */
class SandboxWorkerPool {
  private readonly idle: IdleWorker[] = [];
  private holders = 0;
  private refillTimer: ReturnType<typeof setTimeout> | null = null;
  private refilling: Promise<void> | null = null;
  private spawned = 0;
  private lastBootError: string | null = null;
  /** Taken Workers whose sandbox has not reported ready or failure yet. */
  private starting = 0;

  /** Keep the pool open; call the returned function (idempotent) when the sandbox is released. */
  hold(): () => void {
    this.holders++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--this.holders === 0) this.drain();
      else this.trim();
    };
  }

  /**
   * A warm Worker if one is idle, else a new one; either way it is the caller's now. Call `started` (idempotent)
   * once the sandbox in it is ready or has failed: the pool refills only when no taken Worker is still starting.
   */
  take(): { worker: Worker; started: () => void } {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    this.refillTimer = null;
    this.starting++;
    let pending = true;
    const started = () => {
      if (!pending) return;
      pending = false;
      if (--this.starting === 0) this.scheduleRefill();
    };
    const idle = this.idle.shift();
    if (idle) {
      idle.detach();
      return { worker: idle.worker, started };
    }
    return { worker: this.spawn(), started };
  }

  /** Idle Workers now, pool holders, Workers started since the process began, last boot failure of an idle one. */
  stats(): { idle: number; holders: number; spawned: number; lastBootError: string | null } {
    return { idle: this.idle.length, holders: this.holders, spawned: this.spawned, lastBootError: this.lastBootError };
  }

  /** Resolves once no refill is pending or running. */
  async settled(): Promise<void> {
    while (this.refillTimer || this.refilling) {
      if (this.refilling) await this.refilling;
      else await new Promise((resolve) => setTimeout(resolve, SANDBOX_POOL_REFILL_DELAY_MS));
    }
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    worker.unref();
    this.spawned++;
    return worker;
  }

  private target(): number {
    return Math.min(SANDBOX_POOL_SIZE, this.holders);
  }

  private scheduleRefill(): void {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    this.refillTimer = null;
    if (this.holders === 0 || this.idle.length >= this.target()) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = null;
      this.refilling ??= this.refill().finally(() => (this.refilling = null));
    }, SANDBOX_POOL_REFILL_DELAY_MS);
    this.refillTimer.unref();
  }

  private async refill(): Promise<void> {
    while (this.idle.length < this.target() && this.starting === 0 && !this.refillTimer) {
      const entry = this.preStart();
      this.idle.push(entry);
      if (!(await entry.booted)) return;
    }
  }

  private preStart(): IdleWorker {
    const worker = this.spawn();
    let resolveBooted: (ok: boolean) => void = () => {};
    const booted = new Promise<boolean>((resolve) => (resolveBooted = resolve));
    const settle = (ok: boolean) => {
      clearTimeout(bootTimer);
      resolveBooted(ok);
    };
    const drop = (why: string) => {
      settle(false);
      worker.removeEventListener("close", onClose);
      this.lastBootError = why;
      const at = this.idle.findIndex((e) => e.worker === worker);
      if (at >= 0) this.idle.splice(at, 1);
      worker.terminate();
    };
    const onClose = () => drop("idle sandbox Worker exited");
    const bootTimer = setTimeout(() => drop(`no boot within ${SANDBOX_INIT_TIMEOUT_MS} ms`), SANDBOX_INIT_TIMEOUT_MS);
    bootTimer.unref();
    worker.onmessage = (event: MessageEvent) => {
      if ((event.data as { type?: unknown })?.type === "booted") settle(true);
    };
    worker.onerror = (event) => drop(`idle sandbox Worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`);
    worker.addEventListener("close", onClose);
    return {
      worker,
      booted,
      detach: () => {
        settle(true);
        worker.onmessage = null;
        worker.onerror = null;
        worker.removeEventListener("close", onClose);
      },
    };
  }

  private drain(): void {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    this.refillTimer = null;
    this.trim();
  }

  /** Terminate idle Workers beyond the target (fewer sandboxes live now). */
  private trim(): void {
    for (const entry of this.idle.splice(this.target())) {
      entry.detach();
      entry.worker.terminate();
    }
  }
}

export const sandboxWorkerPool = new SandboxWorkerPool();
