import { PrxError } from "../../../core/errors.ts";
import type { Logger } from "../../../core/logger.ts";
import type { AdmittedPlugin, GuestEventSink, PluginHostServices } from "../../types.ts";
import { MAX_QUEUED_CALLS_PER_INSTANCE, SANDBOX_INIT_TIMEOUT_MS } from "../limits.ts";
import { encodeCall } from "./call-codec.ts";
import { ExecutionTimes } from "./execution-times.ts";
import { newInterruptFlag, raiseInterrupt } from "../guest/meter.ts";
import { toError } from "./errors.ts";
import { parsePayload, readWorkerMessage } from "./messages.ts";
import { SandboxHostRpc } from "./host-rpc.ts";
import type { FromWorker, SandboxInit, SerializedError, ToWorker } from "../protocol.ts";
import { sandboxWorkerPool } from "./pool.ts";
import {
  HOST_CALL_REFUSAL_DELAY_MS,
  HostCallBudget,
  RefusalLog,
  RefusalPacer,
  type HostCallBudgetStatus,
} from "../../host-calls/index.ts";

export interface SandboxOptions {
  /** Time the Worker gets to instantiate every capability (default SANDBOX_INIT_TIMEOUT_MS; tests shorten it). */
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
  inFlight: (PendingCall & { id: number; timer: ReturnType<typeof setTimeout> }) | null;
}

/**
 * Main-thread side of one plugin's sandbox: a Worker holding the capability instances, a FIFO lane per
 * instance, a timer per call that stops the Worker when max_execution_time_ms passes, lazy restart.
 * Workers come from the process's pool of pre-started ones (pool.ts); the sandbox holds the pool open
 * until it is released.
 *
 * Stopping a Worker = raising its interrupt flag, then terminate(): terminate() alone does not stop a thread
 * spinning in WebAssembly (JavaScriptCore only interrupts JS), so the guest's instrumented code reads the flag at
 * every loop header and at the entry of every function that calls, and traps out of the guest.
 */
export class Sandbox {
  private worker: Worker | null = null;
  /** The running Worker's interrupt flag (a new one per Worker). */
  private interrupt: WebAssembly.Memory | null = null;
  private starting: Promise<void> | null = null;
  private readonly lanes: Lane[];
  private nextId = 1;
  private released: Promise<void> | null = null;
  private readonly log: Logger;
  private readonly hostRpc: SandboxHostRpc;
  /** The guest's calls that cross to this thread (rpc, events.publish); it outlives Worker restarts. */
  private readonly hostBudget: HostCallBudget;
  private readonly refusals: RefusalPacer;
  private readonly refusalLog: RefusalLog;
  private onIdle: (() => void) | null = null;
  /** Restarts after a timeout or crash, for status and tests. */
  restarts = 0;
  private readonly execTimes = new ExecutionTimes();
  private readonly letGoOfPool = sandboxWorkerPool.hold();

  constructor(
    readonly plugin: AdmittedPlugin,
    private readonly host: PluginHostServices,
    private readonly init: SandboxInit,
    private readonly options: SandboxOptions = {},
  ) {
    this.lanes = plugin.capabilities.map(() => ({ queue: [], inFlight: null }));
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

  /** How many calls executionP50() looks at (at most EXECUTION_TIME_SAMPLES). */
  executionSamples(): number {
    return this.execTimes.size();
  }

  /** Route events of capability `cap`'s own subscriptions through `sink` (see PluginInstance.routeGuestEvents). */
  setEventSink(cap: number, sink: GuestEventSink): void {
    this.hostRpc.setEventSink(cap, sink);
  }

  /** Start the Worker and instantiate every capability instance; rejects with the load error. */
  start(): Promise<void> {
    if (this.worker) return Promise.resolve();
    this.starting ??= this.spawn().finally(() => (this.starting = null));
    return this.starting;
  }

  private spawn(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const { worker, started } = sandboxWorkerPool.take();
      const interrupt = newInterruptFlag();
      const fail = (error: PrxError) => {
        clearTimeout(timer);
        started();
        stopWorker(worker, interrupt);
        reject(error);
      };
      const limit = this.options.initTimeoutMs ?? SANDBOX_INIT_TIMEOUT_MS;
      const timer = setTimeout(
        () =>
          fail(
            new PrxError(
              "PLUGIN_TIMEOUT",
              `plugin ${this.plugin.name}: sandbox did not start within ${limit} ms (instantiating its capabilities)`,
              { hint: "check the plugin's start function and initializers: they must return" },
            ),
          ),
        limit,
      );
      worker.onerror = (event) => {
        const message = (event as ErrorEvent).message ?? "unknown error";
        if (this.worker === worker) this.crashed(`sandbox worker error: ${message}`);
        else
          fail(new PrxError("PLUGIN_LOAD", `plugin ${this.plugin.name}: sandbox worker failed to start: ${message}`));
      };
      worker.addEventListener("close", () => {
        if (this.worker === worker) this.crashed("sandbox worker exited unexpectedly");
      });
      worker.onmessage = (event: MessageEvent) => {
        const msg = readWorkerMessage(event.data, this.log);
        if (msg === null) return;
        if (!("type" in msg)) return this.settle(msg.id, true, msg.value, undefined, msg.execUs);
        if (msg.type === "booted") return;
        if (msg.type === "ready") {
          clearTimeout(timer);
          started();
          this.worker = worker;
          this.interrupt = interrupt;
          resolve();
          for (let i = 0; i < this.lanes.length; i++) this.pump(i);
        } else if (msg.type === "init-error") {
          fail(toError(msg.error, `plugin ${this.plugin.name}`));
        } else this.onMessage(worker, msg);
      };
      worker.postMessage({ ...this.init, interrupt } satisfies ToWorker);
    });
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
    if (!this.worker) {
      this.start().catch((error: unknown) => this.failAll(error as PrxError));
      return;
    }
    const next = lane.queue.shift()!;
    const id = this.nextId++;
    const limit = this.plugin.resources.maxExecutionTimeMs;
    const timer = setTimeout(() => this.timedOut(cap, next.fn, limit), limit);
    lane.inFlight = { ...next, id, timer };
    const compact = encodeCall(id, cap, next.fn, next.args);
    this.worker.postMessage(compact ?? ({ type: "call", id, cap, fn: next.fn, args: next.args } satisfies ToWorker));
  }

  private onMessage(worker: Worker, msg: FromWorker): void {
    switch (msg.type) {
      case "result":
        this.settle(msg.id, msg.ok, msg.value, msg.error, msg.execUs);
        break;
      case "log":
        this.log[msg.level](msg.message);
        break;
      case "publish": {
        // fire and forget: a publish over the budget is dropped (counted and logged), the guest is not told
        const refusal = this.hostBudget.admit();
        if (refusal) return this.refusalLog.note(`events.publish to ${msg.topic} dropped: ${refusal.message}`);
        this.hostBudget.release();
        this.host.events.publish(msg.topic, parsePayload(msg.payload));
        break;
      }
      case "rpc": {
        const answer = (ok: boolean, value: unknown, error?: string) =>
          worker.postMessage({ type: "rpc-result", id: msg.id, ok, value, ...(error === undefined ? {} : { error }) } satisfies ToWorker);
        const refusal = this.hostBudget.admit();
        if (refusal) {
          const text = `${msg.method} refused: ${refusal.message}`;
          this.refusalLog.note(text);
          if (!this.refusals.hold(() => answer(false, undefined, text))) answer(false, undefined, text);
          return;
        }
        this.hostRpc
          .handle(msg.cap, msg.method, msg.args)
          .finally(() => this.hostBudget.release())
          .then(
            (value) => answer(true, value),
            (error: unknown) => answer(false, undefined, (error as Error).message),
          );
        break;
      }
    }
  }

  private settle(id: number, ok: boolean, value: unknown, error: SerializedError | undefined, execUs?: number): void {
    const lane = this.lanes.find((l) => l.inFlight?.id === id);
    if (!lane || !lane.inFlight) return;
    const call = lane.inFlight;
    lane.inFlight = null;
    clearTimeout(call.timer);
    if (ok && execUs !== undefined) this.execTimes.add(execUs);
    if (ok) call.resolve(value);
    else call.reject(toError(error!, `plugin ${this.plugin.name}`));
    this.pump(this.lanes.indexOf(lane));
    if (this.onIdle && this.idle()) this.onIdle();
  }

  private timedOut(cap: number, fn: string, limit: number): void {
    const capability = this.plugin.capabilities[cap]!;
    const message = `plugin ${this.plugin.name} ${capability.type} ${capability.name} ${fn} exceeded max_execution_time_ms (${limit} ms)`;
    this.log.warn(`${message}; terminating its sandbox`);
    const error = new PrxError("PLUGIN_TIMEOUT", message, {
      hint: "raise [resources] max_execution_time_ms or fix the plugin",
    });
    this.kill(this.lanes[cap]!.inFlight, error, message);
  }

  private crashed(reason: string): void {
    this.log.error(reason);
    this.kill(null, new PrxError("PLUGIN_TRAP", `plugin ${this.plugin.name}: ${reason}`), reason);
  }

  /** Stop the Worker and fail every call in flight or queued on it; the next call starts a new one. */
  private kill(culprit: PendingCall | null, error: PrxError, reason: string): void {
    const worker = this.worker;
    this.worker = null;
    if (worker) stopWorker(worker, this.interrupt);
    this.interrupt = null;
    this.restarts++;
    for (const lane of this.lanes) {
      const calls = [...(lane.inFlight ? [lane.inFlight] : []), ...lane.queue];
      if (lane.inFlight) clearTimeout(lane.inFlight.timer);
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

  /** Wait for in-flight and queued calls, then stop the Worker. Idempotent. */
  release(): Promise<void> {
    this.released ??= (async () => {
      if (!this.idle()) await new Promise<void>((resolve) => (this.onIdle = resolve));
      this.refusals.flush();
      this.refusalLog.flush();
      this.hostRpc.release();
      if (this.worker) stopWorker(this.worker, this.interrupt);
      this.worker = null;
      this.interrupt = null;
      this.letGoOfPool();
    })();
    return this.released;
  }
}

/** Raise the Worker's interrupt flag (its guest stops at its next check), then terminate it. */
function stopWorker(worker: Worker, interrupt: WebAssembly.Memory | null): void {
  if (interrupt) raiseInterrupt(interrupt);
  worker.terminate();
}
