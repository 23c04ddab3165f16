import { PrxError } from "../../../core/errors.ts";
import { HostRpcResultMessageSchema, type RuntimeMethod } from "../protocol/index.ts";
import { fromWireError, hostErrorCode } from "../wire-error.ts";
import type { WorkerChannel } from "./channel.ts";

interface Slot {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
}

/** The worker side of host-rpc: sends `host-rpc`, correlates `host-rpc-result` by requestId. */
export class HostRpcClient {
  private next = 0;
  private readonly pending = new Map<number, Slot>();

  constructor(
    private readonly channel: WorkerChannel,
    private readonly timeoutMs: number,
  ) {}

  call(method: RuntimeMethod, args: unknown): Promise<unknown> {
    const requestId = (this.next = (this.next + 1) >>> 0);
    return new Promise((resolve, reject) => {
      const slot: Slot = { resolve, reject };
      if (this.timeoutMs > 0) {
        slot.timer = setTimeout(() => {
          if (!this.pending.delete(requestId)) return;
          reject(
            new PrxError(
              "PLUGIN_TIMEOUT",
              `runtime.${method} got no answer from the host within ${this.timeoutMs} ms`,
              {
                hint: "the host may be overloaded or shutting down; retry later",
              },
            ),
          );
        }, this.timeoutMs);
      }
      this.pending.set(requestId, slot);
      try {
        this.channel.send({ type: "host-rpc", requestId, api: "runtime", method, args });
      } catch (error) {
        this.pending.delete(requestId);
        if (slot.timer) clearTimeout(slot.timer);
        reject(error as Error);
      }
    });
  }

  /** Returns true when the message was a host-rpc-result (handled here). */
  handle(raw: { type?: unknown }): boolean {
    if (raw.type !== "host-rpc-result") return false;
    const parsed = HostRpcResultMessageSchema.safeParse(raw);
    if (!parsed.success) return false;
    const msg = parsed.data;
    const slot = this.pending.get(msg.requestId);
    if (!slot) return true;
    this.pending.delete(msg.requestId);
    if (slot.timer) clearTimeout(slot.timer);
    if (msg.ok) slot.resolve(msg.payload ?? null);
    else {
      const wire = msg.error ?? { name: "Error", message: "host-rpc failed" };
      slot.reject(fromWireError(wire, "prx host", hostErrorCode(wire)));
    }
    return true;
  }

  failAll(reason: string): void {
    for (const [id, slot] of this.pending) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.reject(new PrxError("REMOTE_PROTOCOL", reason));
      this.pending.delete(id);
    }
  }
}
