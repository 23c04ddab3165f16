import { addAbortWaiter, removeAbortWaiter, type AbortWaiter } from "../core/abort-waiters.ts";

/**
 * The signal prx hands the MCP SDK for one request. The SDK's `Protocol.request()` (@modelcontextprotocol/sdk 1.32,
 * dist/esm/shared/protocol.js) reads `aborted`, `reason` and `throwIfAborted()` of it and adds one "abort" listener
 * that it never removes, so the turn's own signal cannot be handed over (it would collect a listener per call). An
 * AbortController per call did the job at ~0.6-0.8 us per call (a C++ EventTarget, plus the SDK's listener on it);
 * this plain object costs ~20 ns. The turn's signal reaches it through the registry's shared abort waiters, so a
 * call adds no EventTarget listener anywhere. test/mcp/cancel.test.ts checks that an abort still cancels the request
 * on the server (notifications/cancelled) and ends the call at once.
 */
export class CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];
  private readonly forward: AbortWaiter = (reason) => this.abort(reason);

  constructor(private readonly parent: AbortSignal) {
    if (parent.aborted) this.abort(parent.reason);
    else addAbortWaiter(parent, this.forward);
  }

  /** As the SDK's RequestOptions types it. The SDK uses only what this class has (see above). */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === "abort" && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === "abort") this.listeners = this.listeners.filter((l) => l !== listener);
  }

  /** The request is over: stop following the turn's signal. */
  done(): void {
    removeAbortWaiter(this.parent, this.forward);
    this.listeners = [];
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
