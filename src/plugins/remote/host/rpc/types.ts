import type { JsonValue } from "../../../../core/json/index.ts";
import type { AgentIdentity } from "../../agent.ts";
import type { RemoteHostBindings, SurfaceCalls } from "../../types.ts";

/** What serving a plugin's runtime.* calls needs of that plugin (the supervisor implements it). */
export interface HostRpcPeer extends SurfaceCalls {
  readonly agent: AgentIdentity;
  readonly host: RemoteHostBindings;
  /** Manifest `[remote] settings` merged with config: getSetting falls back to them. */
  readonly settings: Readonly<Record<string, JsonValue>>;
  /** The plugin's cache quota; undefined = the manifest default. */
  readonly cacheQuotaBytes: number | undefined;
  /** Provider calls of this plugin in progress: composeState runs no provider while one is, so none recurses. */
  providerDepth: number;
  noteEvent(event: string): void;
  /** Deliver an actionCallback to the turn that made the call; false when no call in progress owns the id. */
  deliverCallback(callbackId: string, content: unknown): boolean;
}
