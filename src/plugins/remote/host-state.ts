import { PrxError } from "../../core/errors.ts";
import type { PluginHostServices, RemoteHostState } from "../types.ts";

/** The state a runtime made for its remote plugins; a host without one cannot run them. */
export function remoteStateOf(host: PluginHostServices): RemoteHostState {
  if (!host.remote) {
    throw new PrxError("INTERNAL", "remote plugins run inside a plugin runtime, which keeps the state they share", {
      hint: "load remote plugins through getPluginRuntime(...), not with a bare host",
    });
  }
  return host.remote;
}
