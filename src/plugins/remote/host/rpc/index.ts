/** The host's answers to a remote plugin's runtime.* calls. */
export { handleHostRpc, refusedHostRpc } from "./handler.ts";
export { composeState, selectProviders } from "./compose-state.ts";
export { HostRpcArgSchemas, type HostRpcArgs } from "./args.ts";
export type { HostRpcPeer } from "./types.ts";
