import { errorMessage } from "../../core/errors.ts";
import { activeSpan, inChildSpan, Prx } from "../../telemetry/index.ts";
import type { CapabilityRef } from "../types.ts";
import type { AdapterContext } from "./types.ts";

/** Extra time the host-side timers of an adapter allow beyond the sandbox's own max_execution_time_ms. */
export const ADAPTER_TIMEOUT_MARGIN_MS = 500;

/**
 * One guest call as every capability adapter makes it: counted as in flight on the generation (its release waits),
 * counted in the capability's status (invocation, duration, last event; the error when it fails), parsed by
 * `parse` (which throws a PrxError for output that does not fit the WIT contract).
 */
export function guestCall<T>(
  context: AdapterContext,
  fn: string,
  args: unknown[],
  event: string,
  parse: (raw: unknown) => T,
): Promise<T> {
  const ref: CapabilityRef = { type: context.capability.type, name: context.capability.name };
  return context.track(async () => {
    const finish = context.status.begin(event);
    try {
      const value = parse(await invokeGuest(context, ref, fn, args));
      finish();
      return value;
    } catch (error) {
      finish(`${event}: ${errorMessage(error)}`);
      throw error;
    }
  });
}

/** `plugin "x" <type> "y"`, for messages. */
export function describeCapability(context: AdapterContext): string {
  return `plugin "${context.plugin.name}" ${context.capability.type} "${context.capability.name}"`;
}

/**
 * `instance.invoke`, as a child span of the work that asked for it when telemetry is on (`prx.plugin
 * <plugin>/<capability>`: plugin, capability, function and generation).
 */
export function invokeGuest(context: AdapterContext, ref: CapabilityRef, fn: string, args: unknown[]): Promise<unknown> {
  // every adapter's guest call (each middleware call of a chain) passes here: with telemetry off, build no span name or attributes
  if (!activeSpan()) return context.instance.invoke(ref, fn, args);
  const { plugin, generation } = context;
  return inChildSpan(
    `prx.plugin ${plugin.name}/${ref.name}`,
    { attributes: { [Prx.plugin]: plugin.name, [Prx.capability]: ref.name, [Prx.capabilityType]: ref.type, [Prx.function]: fn, [Prx.generation]: generation } },
    () => context.instance.invoke(ref, fn, args),
  );
}
