import { loadConfigCached } from "../config/cache.ts";
import { openWorkspace } from "../core/workspace.ts";
import { assertBindable, cannotListen, listeningLine } from "../gateway/bind.ts";
import { listenEarly, type EarlyListener } from "../gateway/early.ts";
import { BUN_MAX_REQUEST_BODY_BYTES, GATEWAY_IDLE_TIMEOUT_S } from "../gateway/limits.ts";
import { openStorage } from "../storage/open.ts";
import type { Storage } from "../storage/types.ts";

/**
 * What `prx gateway` does before anything else: the workspace, its config (cached validation), its database and the
 * listening socket with its early /health (gateway/early.ts). One module with static imports: one chunk to load.
 */
export interface EarlyGateway {
  workspace: string;
  listener: EarlyListener;
  /** The workspace's stores, opened once for the gateway's life: the agent host is given them, the gateway closes them. */
  storage: Storage;
}

export async function listenFirst(workspaceFlag: string | undefined, hostFlag: string | undefined, portFlag: number | undefined): Promise<EarlyGateway> {
  const workspace = openWorkspace(workspaceFlag);
  const { config, path } = await loadConfigCached(workspace.configPath, workspace.cacheDir);
  const hostname = hostFlag ?? config.gateway.host;
  const port = portFlag ?? config.gateway.port;
  assertBindable(hostname, config.gateway);
  const storage = await openStorage(config.storage, workspace.dbPath, process.env, {
    idempotencyTtlMs: config.gateway.idempotency_ttl_s * 1000,
  });
  let listener: EarlyListener;
  try {
    listener = listenEarly({
      hostname,
      port,
      idleTimeout: GATEWAY_IDLE_TIMEOUT_S,
      maxRequestBodySize: BUN_MAX_REQUEST_BODY_BYTES,
      storage,
      config,
      configPath: path,
      answerHealth: config.storage.backend === "sqlite" && config.bus.backend === "local",
    });
  } catch (cause) {
    await storage.close();
    throw cannotListen(hostname, port, cause);
  }
  console.log(listeningLine(hostname, listener.server));
  return { workspace: workspace.root, listener, storage };
}
