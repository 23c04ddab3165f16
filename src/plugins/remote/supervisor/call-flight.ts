import { encodeMessage } from "../protocol/index.ts";
import type { CallTable } from "./calls.ts";
import type { KillReason } from "../types.ts";
import { remoteErrors } from "./failures.ts";
import type { HostTransport } from "../transport/index.ts";

/** What one call in flight needs from its supervisor. */
export interface FlightContext {
  plugin: string;
  calls: CallTable;
  transport: HostTransport;
  timeoutMs: number;
  /** How long a cancelled call may go unacknowledged before the plugin counts as hung. */
  graceMs: number;
  signal?: AbortSignal | undefined;
  /** The call timed out (counted, remembered as the last error). */
  timedOut(label: string, ms: number): void;
  /** A cancel was sent: until it is acknowledged, the plugin may be hung. */
  cancelling(event: string): void;
  /** No acknowledgement within the grace: kill the plugin for this. */
  hung(why: KillReason): void;
}

/**
 * Send one `worker-rpc` and settle with its result. Past its timeout, or when its caller aborts, the call fails at
 * once and `cancel` is sent; a plugin that does not acknowledge the cancel within the grace is hung.
 */
export function fly(ctx: FlightContext, requestId: number, label: string, text: string): Promise<unknown> {
  const { calls, transport, signal } = ctx;
  return new Promise((resolve, reject) => {
    const cancel = (reason: string) => {
      calls.take(requestId);
      transport.send(encodeMessage({ type: "cancel", requestId, reason }));
      ctx.cancelling(`cancelling ${label}: ${reason}`);
      calls.expectAck(requestId, ctx.graceMs, () =>
        ctx.hung({
          reason: `it did not acknowledge the cancel of ${label} within ${ctx.graceMs} ms (hung)`,
          code: "PLUGIN_TIMEOUT",
          hint: "a handler that never yields (a synchronous loop) cannot be cancelled, only killed",
        }),
      );
    };
    const onAbort = () => {
      cancel("aborted by caller");
      reject(remoteErrors.aborted(ctx.plugin, label));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    calls.add(requestId, {
      label,
      resolve,
      reject,
      deadline: performance.now() + ctx.timeoutMs,
      timedOut: () => {
        ctx.timedOut(label, ctx.timeoutMs);
        cancel(`timed out after ${ctx.timeoutMs} ms`);
        reject(remoteErrors.timedOut(ctx.plugin, label, ctx.timeoutMs));
      },
      cleanup: () => signal?.removeEventListener("abort", onAbort),
    });
    transport.send(text);
    transport.expectAnswer();
  });
}
