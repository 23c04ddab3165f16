import { errorMessage, PrxError } from "../../../core/errors.ts";
import type { Logger } from "../../../core/logger.ts";
import { BACKGROUND_TIMERS, type Cancel, type Timers } from "../../../core/timers.ts";
import type { HostCallBudgetStatus } from "../../host-calls/index.ts";
import type { AdmittedPlugin, CapabilityRef, GuestEventSink, PluginInstance, PluginRunState } from "../../types.ts";
import type { Sandbox } from "../sandbox/index.ts";
import { declarationName, type Declarations } from "./declarations.ts";

export interface LazyWasmOptions {
  /** Stop the guest after this long without a call (0: keep it running once started). */
  idleStopMs: number;
  /**
   * The clock (Date.now's) and timer the idle stop runs on; default BACKGROUND_TIMERS: the wait does not keep the
   * process alive (tests inject their own).
   */
  timers?: Pick<Timers, "dateNow" | "after">;
  logger: Logger;
  /** Answers of the declaring exports known already (from the cache); the guest is not started for them. */
  declarations: Declarations | null;
  /** Called once every declaring export has been answered by the running guest (to cache them). */
  onDeclared?(answers: Declarations): void;
  /** Declaring exports the plugin has (declarationCount). */
  declaring: number;
}

/**
 * A WASM plugin whose guest runs only while it is used: its sandbox (compiled component, instances in a pool
 * Worker) is opened by the first call that needs the guest, shared by every call (concurrent first calls wait for
 * the same start), and released after `idleStopMs` without a call; the next call opens it again. Answers of the
 * declaring exports (declarations.ts) come from the cache while it holds them. A start that fails fails the calls
 * waiting for it with a PrxError naming the plugin; the next call tries again.
 */
export class LazyWasmInstance implements PluginInstance {
  private sandbox: Sandbox | null = null;
  private starting: Promise<Sandbox> | null = null;
  private inFlight = 0;
  private lastActivity: number;
  private cancelIdle: Cancel | null = null;
  private released: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private readonly sinks = new Map<number, GuestEventSink>();
  private readonly answers: Declarations;
  private readonly timers: Pick<Timers, "dateNow" | "after">;
  /** Host-call refusals of the sandboxes released before the current one. */
  private earlierRefused = 0;
  private lastRefusedAt: number | null = null;
  /** Times the guest was stopped for being idle (status, tests). */
  idleStops = 0;

  constructor(
    readonly plugin: AdmittedPlugin,
    private readonly open: () => Promise<Sandbox>,
    private readonly options: LazyWasmOptions,
    running: Sandbox | null = null,
  ) {
    this.timers = options.timers ?? BACKGROUND_TIMERS;
    this.answers = { ...(options.declarations ?? {}) };
    this.lastActivity = this.timers.dateNow();
    if (running) this.adopt(running);
  }

  runState(): PluginRunState {
    return this.sandbox ? "running" : this.starting ? "starting" : "idle";
  }

  async invoke(capability: CapabilityRef, fn: string, args: unknown[]): Promise<unknown> {
    const index = this.indexOf(capability);
    if (index < 0) {
      throw new PrxError("PLUGIN_NOT_FOUND", `plugin ${this.plugin.name} has no ${capability.type} capability named ${capability.name}`);
    }
    const declared = declarationName(capability, fn);
    if (declared !== null && declared in this.answers) return this.answers[declared];
    if (this.released) throw new PrxError("PLUGIN_NOT_FOUND", `plugin ${this.plugin.name} was released`);
    this.inFlight++;
    try {
      const sandbox = this.sandbox ?? (await this.start());
      const value = await sandbox.call(index, fn, args);
      if (declared !== null) this.declared(declared, value);
      return value;
    } finally {
      this.inFlight--;
      this.lastActivity = this.timers.dateNow();
      if (this.inFlight === 0) this.drained?.();
      this.armIdle();
    }
  }

  routeGuestEvents(capability: CapabilityRef, deliver: GuestEventSink): void {
    const index = this.indexOf(capability);
    if (index < 0) return;
    this.sinks.set(index, deliver);
    this.sandbox?.setEventSink(index, deliver);
  }

  hostCalls(): HostCallBudgetStatus {
    const now = this.sandbox?.hostCalls();
    return {
      refused: this.earlierRefused + (now?.refused ?? 0),
      lastRefusedAt: now?.lastRefusedAt ?? this.lastRefusedAt,
      inFlight: now?.inFlight ?? 0,
    };
  }

  /** Wait for the calls in flight, then release the guest. Idempotent; later calls fail. */
  release(): Promise<void> {
    this.released ??= (async () => {
      this.cancelIdle?.();
      this.cancelIdle = null;
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      const sandbox = this.sandbox;
      this.sandbox = null;
      await sandbox?.release();
    })();
    return this.released;
  }

  private start(): Promise<Sandbox> {
    this.starting ??= this.open()
      .then(
        (sandbox) => this.adopt(sandbox),
        (cause: unknown) => {
          const code = cause instanceof PrxError ? cause.code : "PLUGIN_LOAD";
          this.options.logger.error(`plugin ${this.plugin.name} failed to start: ${errorMessage(cause)}`);
          throw new PrxError(code, `plugin ${this.plugin.name} failed to start on its first call: ${errorMessage(cause)}`, {
            cause,
            hint:
              (cause instanceof PrxError ? cause.hint : undefined) ??
              "fix the plugin and reload it (the next call tries to start it again)",
          });
        },
      )
      .finally(() => (this.starting = null));
    return this.starting;
  }

  private adopt(sandbox: Sandbox): Sandbox {
    for (const [index, sink] of this.sinks) sandbox.setEventSink(index, sink);
    this.sandbox = sandbox;
    this.lastActivity = this.timers.dateNow();
    this.armIdle();
    return sandbox;
  }

  private declared(name: string, value: unknown): void {
    if (name in this.answers) return;
    this.answers[name] = value;
    if (Object.keys(this.answers).length === this.options.declaring) this.options.onDeclared?.({ ...this.answers });
  }

  private armIdle(): void {
    if (this.options.idleStopMs === 0 || this.cancelIdle || !this.sandbox || this.released) return;
    this.cancelIdle = this.timers.after(() => this.idleCheck(), this.options.idleStopMs);
  }

  private idleCheck(): void {
    this.cancelIdle = null;
    const sandbox = this.sandbox;
    if (!sandbox || this.released || this.inFlight > 0) return;
    // a guest subscribed to events of its own is reached by them, not by calls: it keeps running
    if (sandbox.subscribed()) return;
    const quiet = this.timers.dateNow() - this.lastActivity;
    if (quiet < this.options.idleStopMs) {
      this.cancelIdle = this.timers.after(() => this.idleCheck(), this.options.idleStopMs - quiet);
      return;
    }
    this.sandbox = null;
    this.idleStops++;
    const budget = sandbox.hostCalls();
    this.earlierRefused += budget.refused;
    this.lastRefusedAt = budget.lastRefusedAt ?? this.lastRefusedAt;
    this.options.logger.debug(`stopped after ${this.options.idleStopMs} ms without a call; the next call starts it`);
    sandbox.release().catch((error: unknown) => this.options.logger.warn(`releasing the idle guest failed: ${errorMessage(error)}`));
  }

  private indexOf(capability: CapabilityRef): number {
    return this.plugin.capabilities.findIndex((c) => c.type === capability.type && c.name === capability.name);
  }
}
