import { PrxError } from "../../../core/errors.ts";
import { remoteErrors } from "./failures.ts";
import { ReadyGate } from "../ready-gate.ts";
import type { SupervisorStats } from "./stats.ts";
import type { RemoteState } from "../types.ts";

/**
 * The state of one remote plugin as callers and status see it, with the gate callers wait at while it is not ready.
 * Each transition records `last_event`, so status says what happened last (a cancel, a kill, a restart).
 */
export class Lifecycle {
  state: RemoteState = "starting";
  private readonly gate = new ReadyGate();

  constructor(
    private readonly name: string,
    private readonly stats: SupervisorStats,
  ) {}

  ready(event = "ready"): void {
    this.state = "ready";
    this.stats.lastEvent = event;
    this.gate.open();
  }

  /** Not running; the next call starts it. `error`: why the start that was under way failed (its waiters get it). */
  idle(event: string, error?: Error): void {
    this.state = "idle";
    this.stats.lastEvent = event;
    if (error) this.gate.fail(error);
    else this.gate.open();
  }

  starting(event: string): void {
    this.state = "starting";
    this.stats.lastEvent = event;
  }

  /** A call was cancelled: until the plugin acknowledges, new calls wait (it may be hung). */
  cancelling(event: string): void {
    this.stats.lastEvent = event;
    if (this.state === "ready") this.state = "cancelling";
  }

  /** Every cancel was acknowledged: the plugin is not hung. */
  cancelsSettled(): void {
    if (this.state === "cancelling") this.ready("ready: cancel acknowledged");
  }

  restarting(event: string): void {
    this.state = "restarting";
    this.stats.lastEvent = event;
  }

  failed(reason: string): void {
    this.state = "failed";
    this.stats.lastEvent = "failed";
    this.stats.lastError = reason;
    this.gate.fail(new PrxError("REMOTE_CRASHED", `remote plugin ${this.name}: ${reason}`));
  }

  stopped(): void {
    this.state = "stopped";
    this.stats.lastEvent = "stopped";
    this.gate.fail(new PrxError("PLUGIN_NOT_FOUND", `remote plugin ${this.name} was shut down`));
  }

  /** Resolves when the plugin is ready (again) or idle (callable: a call starts it); rejects when it failed, stopped, or took longer than `timeoutMs`. */
  wait(timeoutMs: number): Promise<void> {
    if (this.state === "ready" || this.state === "idle") return Promise.resolve();
    if (this.state === "failed") return Promise.reject(remoteErrors.failed(this.name, this.stats.lastError));
    if (this.state === "stopped") {
      return Promise.reject(new PrxError("PLUGIN_NOT_FOUND", `remote plugin ${this.name} was shut down`));
    }
    return this.gate.wait(timeoutMs, () =>
      remoteErrors.notReady(this.name, timeoutMs, `${this.state}: ${this.stats.lastEvent ?? "no event yet"}`),
    );
  }
}
