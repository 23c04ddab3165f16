import type { Logger } from "../../../core/logger.ts";
import { raiseInterrupt } from "../guest/meter.ts";
import { MAX_ARTIFACTS_PER_WORKER, SANDBOX_ANSWER_WAIT_US, SANDBOX_STOP_GRACE_MS } from "../limits.ts";
import type { FromWorker, SerializedError, ToWorker } from "../protocol.ts";
import { Linger, Mailbox } from "../../hop/index.ts";
import { readWorkerMessage } from "./messages.ts";

/** A FromWorker message addressed to one tenant. */
export type TenantMessage = Extract<FromWorker, { tenant: number }>;

/** One plugin's sandbox as its Worker's owner sees it (Sandbox implements it). */
export interface TenantHandler {
  onMessage(message: TenantMessage): void;
  onResult(id: number, ok: boolean, value: unknown, error: SerializedError | undefined, execUs?: number): void;
  /** The Worker is gone (it crashed, or was terminated because a guest in it did not stop): `reason` says why. */
  onWorkerLost(reason: string): void;
  /** The latest deadline (epoch ms) of its calls in flight, 0 when none: the Worker may be busy with them till then. */
  busyUntil(): number;
  /** The plugin serves middleware: the pool keeps the members of a chain in one Worker (pool.ts). */
  readonly servesMiddleware?: boolean;
  /**
   * The same plugin across its generations (its name and entry file): the pool places a reloaded plugin's sandbox in
   * the Worker of the one it replaces (pool.ts).
   */
  readonly lineage?: string;
}

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Main-thread owner of one shared sandbox Worker: it numbers the tenants (plugin sandboxes) and their instance
 * slots, allocates call ids, routes the Worker's messages to their tenant, and watches stops.
 *
 * A stop (a call timed out, a start did not finish, a release) raises the tenant's own interrupt flag, so its guest
 * traps at its next check and only it, then asks the Worker to drop the tenant. The Worker answers once it is free.
 * If it has not answered within SANDBOX_STOP_GRACE_MS, and no other tenant has a call in flight still within its
 * deadline (that call may be what holds the Worker, and its own timer will stop it), the Worker is stuck: every
 * flag in it is raised, it is terminated, and every tenant is told (onWorkerLost).
 */
export class PoolWorker {
  readonly worker: Worker;
  /** Resolves when the Worker has evaluated its modules (true) or failed first (false). */
  readonly booted: Promise<boolean>;
  private readonly handlers = new Map<number, TenantHandler>();
  /**
   * The interrupt flag of every tenant the Worker still holds, live or stopping; null until the Worker has sent the
   * flag it created for the tenant (a stop in between raises it on arrival).
   */
  private readonly flags = new Map<number, WebAssembly.Memory | null>();
  private readonly stopping = new Map<number, ReturnType<typeof setTimeout>>();
  private readonly calls = new Map<number, TenantHandler>();
  private nextCall = 1;
  private nextSlot = 0;
  private stuckTimer: ReturnType<typeof setTimeout> | null = null;
  /** Components' scripts (their JS text's hash) the Worker has evaluated (it keeps them for its life). */
  private readonly artifacts = new Set<string>();
  private markBooted: (ok: boolean) => void = () => {};
  /** Counts every message posted to the Worker: it watches it for a moment after a call (plugins/hop/mailbox.ts). */
  private readonly mailbox = new Mailbox();
  /** Counts every answer the Worker posts: the main thread watches it for a moment after posting a call. */
  private readonly answers = new Mailbox();
  gone: string | null = null;

  constructor(
    url: string | URL,
    private readonly log: Logger,
    private readonly onGone: (worker: PoolWorker) => void,
    /** Numbers unique across the pool's Workers: a sandbox that moves to another Worker never meets its old number. */
    private readonly tenantNumber: () => number,
    /** The watch for a call's answer, on the Worker's count of answers (SANDBOX_ANSWER_WAIT_US). */
    private readonly answerWatch: Linger = new Linger(SANDBOX_ANSWER_WAIT_US),
  ) {
    this.booted = new Promise((resolve) => (this.markBooted = resolve));
    this.worker = new Worker(url);
    this.worker.unref();
    this.worker.onmessage = (event: MessageEvent) => this.receive(event.data);
    this.worker.onerror = (event) => this.lose(`sandbox worker error: ${(event as ErrorEvent).message ?? "unknown error"}`);
    this.worker.addEventListener("close", () => this.lose("sandbox worker exited unexpectedly"));
    this.post({ type: "mailbox", buffer: this.mailbox.buffer, answers: this.answers.buffer });
  }

  /** Tenants hosted now (live ones; stopping ones are on their way out). */
  tenants(): number {
    return this.handlers.size;
  }

  /** Whether it hosts a live sandbox of a plugin serving middleware. */
  hostsMiddleware(): boolean {
    for (const handler of this.handlers.values()) if (handler.servesMiddleware) return true;
    return false;
  }

  /** Whether it hosts a live sandbox of this lineage (TenantHandler.lineage). */
  hostsLineage(lineage: string): boolean {
    for (const handler of this.handlers.values()) if (handler.lineage === lineage) return true;
    return false;
  }

  /**
   * True once the Worker has evaluated MAX_ARTIFACTS_PER_WORKER components' JS (a module cannot be unloaded): the
   * pool places no new sandbox in it. Every Worker ends when its last tenant has gone.
   */
  retired(): boolean {
    return this.artifacts.size >= MAX_ARTIFACTS_PER_WORKER;
  }

  /**
   * Start hosting a tenant: its number and one slot per capability instance. Send its init with `post`. `interrupt`
   * null: the Worker creates the tenant's flag and sends it ("flag"), as it does for every init.
   */
  attach(handler: TenantHandler, interrupt: WebAssembly.Memory | null, instances: number): { tenant: number; slots: number[] } {
    const tenant = this.tenantNumber();
    this.handlers.set(tenant, handler);
    this.flags.set(tenant, interrupt);
    return { tenant, slots: Array.from({ length: instances }, () => this.nextSlot++) };
  }

  post(message: ToWorker | string): void {
    if (this.gone) return;
    if (typeof message !== "string" && message.type === "init" && message.component) this.artifacts.add(message.component.script);
    this.worker.postMessage(message);
    this.mailbox.posted();
    // a call (encoded as a string, or a message of type "call"): watch for its answer once this turn is done
    if (typeof message === "string" || message.type === "call") {
      const seen = this.answers.seen();
      this.answerWatch.soon((windowUs) => this.answers.linger(seen, windowUs), () => this.calls.size > 0);
    }
  }

  /** A call id for `handler`'s next call (its result is routed back by it). */
  callId(handler: TenantHandler): number {
    const id = this.nextCall++;
    this.calls.set(id, handler);
    return id;
  }

  /** The tenant no longer waits for call `id` (it timed out or was failed). */
  forget(id: number): void {
    this.calls.delete(id);
  }

  /** Raise the tenant's flag and drop it from the Worker (see the class comment). Idempotent. */
  stop(tenant: number): void {
    this.handlers.delete(tenant);
    if (!this.flags.has(tenant) || this.stopping.has(tenant) || this.gone) return;
    const flag = this.flags.get(tenant);
    if (flag) raiseInterrupt(flag);
    const timer = setTimeout(() => this.checkStuck(), SANDBOX_STOP_GRACE_MS);
    timer.unref();
    this.stopping.set(tenant, timer);
    this.post({ type: "stop", tenant });
  }

  /** Raise every flag, then end the Worker's thread (JavaScriptCore does not interrupt WebAssembly by itself). */
  terminate(reason: string): void {
    for (const flag of this.flags.values()) if (flag) raiseInterrupt(flag);
    this.worker.terminate();
    this.lose(reason);
  }

  private checkStuck(): void {
    if (this.stuckTimer) clearTimeout(this.stuckTimer);
    this.stuckTimer = null;
    if (this.gone || this.stopping.size === 0) return;
    let busyUntil = 0;
    for (const handler of this.handlers.values()) busyUntil = Math.max(busyUntil, handler.busyUntil());
    const wait = busyUntil - Date.now();
    if (wait > 0) {
      this.stuckTimer = setTimeout(() => this.checkStuck(), Math.min(wait + SANDBOX_STOP_GRACE_MS, MAX_TIMER_MS));
      this.stuckTimer.unref();
      return;
    }
    const reason = `a guest in its sandbox Worker did not stop within ${SANDBOX_STOP_GRACE_MS} ms of its interrupt`;
    this.log.error(`${reason}; terminating the Worker (its other plugins are started again on their next call)`);
    this.terminate(reason);
  }

  private receive(data: unknown): void {
    const msg = readWorkerMessage(data, this.log);
    if (msg === null) return;
    if (!("type" in msg)) return this.result(msg.id, true, msg.value, undefined, msg.execUs);
    switch (msg.type) {
      case "booted":
        return this.markBooted(true);
      case "flag": {
        if (this.flags.get(msg.tenant) !== null) return; // gone already, or its flag came with attach
        this.flags.set(msg.tenant, msg.interrupt);
        if (this.stopping.has(msg.tenant)) raiseInterrupt(msg.interrupt);
        return;
      }
      case "result":
        return this.result(msg.id, msg.ok, msg.value, msg.error, msg.execUs);
      case "stopped": {
        const timer = this.stopping.get(msg.tenant);
        if (timer) clearTimeout(timer);
        this.stopping.delete(msg.tenant);
        this.flags.delete(msg.tenant);
        if (this.stopping.size === 0 && this.stuckTimer) clearTimeout(this.stuckTimer);
        // an empty Worker ends: what it evaluated for the plugins it hosted goes with it (the pool starts another)
        if (this.handlers.size === 0 && this.stopping.size === 0) this.terminate(this.retired() ? "retired" : "its last plugin stopped");
        return;
      }
      default: {
        if (msg.type === "log" && msg.tenant === 0) return this.log[msg.level](msg.message);
        this.handlers.get(msg.tenant)?.onMessage(msg);
      }
    }
  }

  private result(id: number, ok: boolean, value: unknown, error: SerializedError | undefined, execUs?: number): void {
    const handler = this.calls.get(id);
    if (!handler) return;
    this.calls.delete(id);
    handler.onResult(id, ok, value, error, execUs);
  }

  private lose(reason: string): void {
    if (this.gone) return;
    this.gone = reason;
    this.markBooted(false);
    for (const timer of this.stopping.values()) clearTimeout(timer);
    if (this.stuckTimer) clearTimeout(this.stuckTimer);
    this.stopping.clear();
    this.calls.clear();
    this.onGone(this);
    const handlers = [...this.handlers.values()];
    this.handlers.clear();
    this.flags.clear();
    for (const handler of handlers) handler.onWorkerLost(reason);
  }
}
