import { PrxError } from "../../core/errors.ts";
import { DeliveryDepths } from "../events/delivery-depths.ts";
import { MemoryTicker } from "./host/memory/ticker.ts";
import { REMOTE_MEMORY_CHECK_MS } from "./limits.ts";
import type { PluginHostServices, RemoteHostState } from "../types.ts";

/** The state a host keeps for its remote plugins: made with a runtime (or with an isolated check's host). */
export function newRemoteHostState(): RemoteHostState {
  return { depths: new DeliveryDepths(), bindings: null, memoryTicker: new MemoryTicker(REMOTE_MEMORY_CHECK_MS) };
}

/** The state a runtime (or an isolated check) made for its remote plugins; a host without one cannot run them. */
export function remoteStateOf(host: PluginHostServices): RemoteHostState {
  if (!host.remote) {
    throw new PrxError("INTERNAL", "remote plugins run inside a plugin runtime, which keeps the state they share", {
      hint: "give the host services a remote state (newRemoteHostState()), as getPluginRuntime(...) does",
    });
  }
  return host.remote;
}
