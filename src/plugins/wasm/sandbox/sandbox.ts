import { PrxError } from "../../../core/errors.ts";
import type { Logger } from "../../../core/logger.ts";
import type { AdmittedPlugin, GuestEventSink, PluginHostServices } from "../../types.ts";
import { MAX_QUEUED_CALLS_PER_INSTANCE, SANDBOX_INIT_TIMEOUT_MS } from "../limits.ts";
import { encodeCall } from "./call-codec.ts";
import { ExecutionTimes } from "./execution-times.ts";
import { toError } from "./errors.ts";
import { parsePayload } from "./messages.ts";
import { SandboxHostRpc } from "./host-rpc.ts";
import type { SandboxInit, SerializedError, ToWorker } from "../protocol.ts";
import { sandboxWorkerPool } from "./pool.ts";
import type { PoolWorker, TenantHandler, TenantMessage } from "./pool-worker.ts";
import {
  HOST_CALL_REFUSAL_DELAY_MS,
  HostCallBudget,
  RefusalLog,
  RefusalPacer,
  type HostCallBudgetStatus,
} from "../../host-calls/index.ts";

export interface SandboxOptions {
  /** Time the sandbox gets to instantiate every capability (default SANDBOX_INIT_TIMEOUT_MS; tests shorten it). */
  initTimeoutMs?: number;
  /** Clock of the host-call budget (epoch ms; tests inject one). */
  hostCallClock?: () => number;
}

interface PendingCall {
  fn: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: PrxError) => void;
}

interface Lane {
  queue: PendingCall[];
  inFlight: (PendingCall & { id: number; deadline: number; timer: ReturnType<typeof setTimeout> }) | null;
}

/** A start under way: the Worker it went to, the incarnation's tenant number and slots. */
interface Starting {
  host: PoolWorker;
  tenant: number;
  slots: number[];
  settle(error: PrxError | null): void;
  /** The Worker was lost while starting: start again elsewhere (once). */
  retry(): void;
}

/**
 * Main-thread side of one plugin's sandbox: its capability instances, hosted as one tenant of a shared sandbox
 * Worker (pool.ts), a FIFO lane per instance, a timer per call that stops this plugin's guests when
 * max_execution_time_ms passes, lazy restart. The sandbox holds the pool open until it is released.
 *
 * Stopping = raising this incarnation's interrupt flag (its instrumented guests trap at the next loop header or
 * function entry: JavaScriptCore does not interrupt a thread running WebAssembly) and dropping it from its Worker;
 * neighbours keep their instances. A Worker that does not drop it in time is terminated (pool-worker.ts); then
 * every plugin in it fails its calls in flight (PLUGIN_TRAP naming the cause) and starts again on its next call,
 * its queued calls going on in the new incarnation.
 */
export class Sandbox implements TenantHandler {
  /** The Worker hosting the live incarnation, its tenant number there and its instance slots (its flag is the Worker owner's). */
  private host: PoolWorker | null = null;
  private tenant = 0;
  private slots: number[] = [];
  private starting: Promise<void> | null = null;
  private pendingStart: Starting | null = null;
  private readonly lanes: Lane[];
  private released: Promise<void> | null = null;
  private readonly log: Logger;
  private readonly hostRpc: SandboxHostRpc;
  /** The guest's calls that cross to this thread (rpc, events.publish); it outlives restarts. */
  private readonly hostBudget: HostCallBudget;
  private readonly refusals: RefusalPacer;
  private readonly refusalLog: RefusalLog;
  private onIdle: (() => void) | null = null;
  /** Restarts after a timeout or crash, for status and tests. */
  restarts = 0;
  private readonly execTimes = new ExecutionTimes();
  private readonly letGoOfPool = sandboxWorkerPool.hold();
  /** The pool keeps a middleware chain's members in one Worker (pool.ts). */
  readonly servesMiddleware: boolean;
  /** The pool places a reloaded plugin's sandbox beside the one it replaces (pool.ts). */
  readonly lineage: string;

  constructor(
    readonly plugin: AdmittedPlugin,
    private readonly services: PluginHostServices,
    private readonly init: SandboxInit,
    private readonly options: SandboxOptions = {},
    /** Called once the sandbox is released (the loader lets go of the prepared artifact it runs). */
    private readonly onReleased: () => void = () => {},
  ) {
    const host = services;
    this.lanes = plugin.capabilities.map(() => ({ queue: [], inFlight: null }));
    this.servesMiddleware = plugin.capabilities.some((capability) => capability.type === "middleware");
    this.lineage = `${plugin.name}\0${plugin.entryPath}`;
    this.log = host.logger.child(`plugin.${plugin.name}`);
    const kvQuotaBytes = Math.floor(plugin.resources.maxKvStorageMb * 1024 * 1024);
    this.hostRpc = new SandboxHostRpc(plugin.name, host, this.log, (cap, fn, args) => this.call(cap, fn, args), kvQuotaBytes);
    this.hostBudget = new HostCallBudget(plugin.name, plugin.resources.hostCalls, options.hostCallClock);
    // a refused rpc must reach the guest well before its call's max_execution_time_ms ends
    const delayMs = Math.min(HOST_CALL_REFUSAL_DELAY_MS, Math.floor(plugin.resources.maxExecutionTimeMs / 2));
    this.refusals = new RefusalPacer(delayMs);
    this.refusalLog = new RefusalLog((line) => this.log.warn(line));
  }

  /** The host-call budget's counters (refused calls, the last one's time, calls in flight). */
  hostCalls(): HostCallBudgetStatus {
    return this.hostBudget.status();
  }

  /** Median time the guest itself ran inside the Worker over its last successful calls (us; execution-times.ts). */
  executionP50(): number | null {
    return this.execTimes.p50();
  }

  /** How long the guest ran inside the Worker in its latest successful call (us), null before the first. */
  lastExecution(): number | null {
    return this.execTimes.last();
  }

  /** How many calls executionP50() looks at (at most EXECUTION_TIME_SAMPLES). */
  executionSamples(): number {
    return this.execTimes.size();
  }

  /** The guest subscribed to events itself (events.subscribe): they reach it without a call. */
  subscribed(): boolean {
    return this.hostRpc.subscribed();
  }

  /** Route events of capability `cap`'s own subscriptions through `sink` (see PluginInstance.routeGuestEvents). */
  setEventSink(cap: number, sink: GuestEventSink): void {
    this.hostRpc.setEventSink(cap, sink);
  }

  /** Instantiate every capability instance in a pool Worker; rejects with the load error. */
  start(): Promise<void> {
    if (this.host) return Promise.resolve();
    this.starting ??= this.spawn(true).finally(() => (this.starting = null));
    return this.starting;
  }

  private spawn(mayRetry: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const host = sandboxWorkerPool.place(this.servesMiddleware, this.lineage);
      const { tenant, slots } = host.attach(this, null, this.lanes.length);
      const limit = this.options.initTimeoutMs ?? SANDBOX_INIT_TIMEOUT_MS;
      const timer = setTimeout(() => {
        host.stop(tenant);
        starting.settle(
          new PrxError(
            "PLUGIN_TIMEOUT",
            `plugin ${this.plugin.name}: sandbox did not start within ${limit} ms (instantiating its capabilities)`,
            { hint: "check the plugin's start function and initializers: they must return" },
          ),
        );
      }, limit);
      const starting: Starting = {
        host,
        tenant,
        slots,
        settle: (error) => {
          clearTimeout(timer);
          if (this.pendingStart !== starting) return;
          this.pendingStart = null;
          if (error) return reject(error);
          this.host = host;
          this.tenant = tenant;
          this.slots = slots;
          resolve();
          for (let i = 0; i < this.lanes.length; i++) this.pump(i);
        },
        retry: () => {
          clearTimeout(timer);
          if (this.pendingStart !== starting) return;
          this.pendingStart = null;
          if (!mayRetry) {
            reject(new PrxError("PLUGIN_LOAD", `plugin ${this.plugin.name}: sandbox worker failed to start: ${host.gone}`));
            return;
          }
          this.spawn(false).then(resolve, reject);
        },
      };
      this.pendingStart = starting;
      host.post({ ...this.init, tenant, slots } satisfies ToWorker);
    });
  }

  /** A message of this sandbox's tenant from its Worker (pool-worker.ts routes them). */
  onMessage(msg: TenantMessage): void {
    const starting = this.pendingStart;
    switch (msg.type) {
      case "ready":
        if (starting?.tenant === msg.tenant) starting.settle(null);
        return;
      case "init-error":
        if (starting?.tenant === msg.tenant) {
          starting.host.stop(msg.tenant);
          starting.settle(toError(msg.error, `plugin ${this.plugin.name}`));
        }
        return;
      case "stopped":
      case "flag":
        return;
      case "log":
        this.log[msg.level](msg.message);
        return;
      case "publish": {
        // fire and forget: a publish over the budget is dropped (counted and logged), the guest is not told
        const refusal = this.hostBudget.admit();
        if (refusal) return this.refusalLog.note(`events.publish to ${msg.topic} dropped: ${refusal.message}`);
        this.hostBudget.release();
        this.services.events.publish(msg.topic, parsePayload(msg.payload));
        return;
      }
      case "rpc": {
        const worker = this.host ?? starting?.host;
        const answer = (ok: boolean, value: unknown, error?: string) =>
          worker?.post({ type: "rpc-result", id: msg.id, ok, value, ...(error === undefined ? {} : { error }) } satisfies ToWorker);
        const refusal = this.hostBudget.admit();
        if (refusal) {
          const text = `${msg.method} refused: ${refusal.message}`;
          this.refusalLog.note(text);
          if (!this.refusals.hold(() => answer(false, undefined, text))) answer(false, undefined, text);
          return;
        }
        const cap = msg.cap;
        this.hostRpc
          .handle(cap, msg.method, msg.args)
          .finally(() => this.hostBudget.release())
          .then(
            (value) => answer(true, value),
            (error: unknown) => answer(false, undefined, (error as Error).message),
          );
        return;
      }
    }
  }

  /** The latest deadline of this sandbox's calls in flight (0: none). */
  busyUntil(): number {
    let latest = 0;
    for (const lane of this.lanes) if (lane.inFlight) latest = Math.max(latest, lane.inFlight.deadline);
    return latest;
  }

  /** The Worker hosting this sandbox is gone: fail the calls in flight there; queued calls go on in a new one. */
  onWorkerLost(reason: string): void {
    if (this.pendingStart) return this.pendingStart.retry();
    this.host = null;
    this.restarts++;
    this.log.error(`${reason}; plugin ${this.plugin.name} starts again on its next call`);
    let failed = false;
    for (const lane of this.lanes) {
      const call = lane.inFlight;
      if (!call) continue;
      clearTimeout(call.timer);
      lane.inFlight = null;
      failed = true;
      call.reject(
        new PrxError("PLUGIN_TRAP", `plugin ${this.plugin.name}: call ${call.fn} aborted because its sandbox Worker stopped (${reason})`, {
          hint: "the call was not retried (it may have run in part); the plugin is started again on its next call",
        }),
      );
    }
    for (let i = 0; i < this.lanes.length; i++) this.pump(i);
    if (failed && this.onIdle && this.idle()) this.onIdle();
  }

  call(cap: number, fn: string, args: unknown[]): Promise<unknown> {
    if (this.released)
      return Promise.reject(new PrxError("PLUGIN_NOT_FOUND", `plugin ${this.plugin.name} was released`));
    const lane = this.lanes[cap]!;
    if (lane.queue.length >= MAX_QUEUED_CALLS_PER_INSTANCE) {
      return Promise.reject(
        new PrxError(
          "LIMIT_EXCEEDED",
          `plugin ${this.plugin.name}: more than ${MAX_QUEUED_CALLS_PER_INSTANCE} calls queued on one instance`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      lane.queue.push({ fn, args, resolve, reject });
      this.pump(cap);
    });
  }

  private pump(cap: number): void {
    const lane = this.lanes[cap]!;
    if (lane.inFlight || lane.queue.length === 0) return;
    const host = this.host;
    if (!host) {
      this.start().catch((error: unknown) => this.failAll(error as PrxError));
      return;
    }
    const next = lane.queue.shift()!;
    const id = host.callId(this);
    const limit = this.plugin.resources.maxExecutionTimeMs;
    const timer = setTimeout(() => this.timedOut(cap, next.fn, limit), limit);
    lane.inFlight = { ...next, id, deadline: Date.now() + limit, timer };
    const slot = this.slots[cap]!;
    const compact = encodeCall(id, slot, next.fn, next.args);
    host.post(compact ?? ({ type: "call", id, cap: slot, fn: next.fn, args: next.args } satisfies ToWorker));
  }

  onResult(id: number, ok: boolean, value: unknown, error: SerializedError | undefined, execUs?: number): void {
    let cap = 0;
    while (cap < this.lanes.length && this.lanes[cap]!.inFlight?.id !== id) cap++;
    const lane = this.lanes[cap];
    const call = lane?.inFlight;
    if (!lane || !call) return;
    lane.inFlight = null;
    clearTimeout(call.timer);
    if (ok && execUs !== undefined) this.execTimes.add(execUs);
    if (ok) call.resolve(value);
    else call.reject(toError(error!, `plugin ${this.plugin.name}`));
    this.pump(cap);
    if (this.onIdle && this.idle()) this.onIdle();
  }

  private timedOut(cap: number, fn: string, limit: number): void {
    const capability = this.plugin.capabilities[cap]!;
    const message = `plugin ${this.plugin.name} ${capability.type} ${capability.name} ${fn} exceeded max_execution_time_ms (${limit} ms)`;
    this.log.warn(`${message}; stopping its sandbox`);
    const error = new PrxError("PLUGIN_TIMEOUT", message, {
      hint: "raise [resources] max_execution_time_ms or fix the plugin",
    });
    this.kill(this.lanes[cap]!.inFlight, error, message);
  }

  /** Stop this sandbox's instances and fail every call in flight or queued on them; the next call starts again. */
  private kill(culprit: PendingCall | null, error: PrxError, reason: string): void {
    const host = this.host;
    this.host = null;
    if (host) host.stop(this.tenant);
    this.restarts++;
    for (const lane of this.lanes) {
      const calls = [...(lane.inFlight ? [lane.inFlight] : []), ...lane.queue];
      if (lane.inFlight) {
        clearTimeout(lane.inFlight.timer);
        host?.forget(lane.inFlight.id);
      }
      lane.inFlight = null;
      lane.queue = [];
      for (const call of calls) {
        call.reject(
          call === culprit || (culprit === null && call === calls[0])
            ? error
            : new PrxError(
                error.code,
                `plugin ${this.plugin.name}: call ${call.fn} aborted because its sandbox was terminated (${reason})`,
              ),
        );
      }
    }
    this.onIdle?.();
  }

  private failAll(error: PrxError): void {
    for (const lane of this.lanes) {
      const calls = lane.queue;
      lane.queue = [];
      for (const call of calls) call.reject(error);
    }
    this.onIdle?.();
  }

  private idle(): boolean {
    return this.lanes.every((l) => !l.inFlight && l.queue.length === 0);
  }

  /** Wait for in-flight and queued calls, then drop the instances from their Worker. Idempotent. */
  release(): Promise<void> {
    this.released ??= (async () => {
      if (!this.idle()) await new Promise<void>((resolve) => (this.onIdle = resolve));
      this.refusals.flush();
      this.refusalLog.flush();
      this.hostRpc.release();
      const starting = this.pendingStart;
      if (starting) {
        starting.host.stop(starting.tenant);
        starting.settle(new PrxError("PLUGIN_NOT_FOUND", `plugin ${this.plugin.name} was released while starting`));
      }
      if (this.host) this.host.stop(this.tenant);
      this.host = null;
      this.letGoOfPool();
      this.onReleased();
    })();
    return this.released;
  }
}
