import { loadConfigCached } from "../config/cache.ts";
import { openDatabase } from "../core/database.ts";
import { openWorkspace } from "../core/workspace.ts";
import { assertBindable, cannotListen, listeningLine } from "../gateway/bind.ts";
import { listenEarly, type EarlyListener } from "../gateway/early.ts";
import { BUN_MAX_REQUEST_BODY_BYTES, GATEWAY_IDLE_TIMEOUT_S } from "../gateway/limits.ts";

/**
 * What `prx gateway` does before anything else: the workspace, its config (cached validation), its database and the
 * listening socket with its early /health (gateway/early.ts). One module with static imports: one chunk to load.
 */
export interface EarlyGateway {
  workspace: string;
  listener: EarlyListener;
}

export async function listenFirst(workspaceFlag: string | undefined, hostFlag: string | undefined, portFlag: number | undefined): Promise<EarlyGateway> {
  const workspace = openWorkspace(workspaceFlag);
  const { config, path } = await loadConfigCached(workspace.configPath, workspace.cacheDir);
  const hostname = hostFlag ?? config.gateway.host;
  const port = portFlag ?? config.gateway.port;
  assertBindable(hostname, config.gateway);
  let listener: EarlyListener;
  try {
    listener = listenEarly({
      hostname,
      port,
      idleTimeout: GATEWAY_IDLE_TIMEOUT_S,
      maxRequestBodySize: BUN_MAX_REQUEST_BODY_BYTES,
      db: openDatabase(workspace.dbPath),
      config,
      configPath: path,
      answerHealth: config.storage.backend === "sqlite" && config.bus.backend === "local",
    });
  } catch (cause) {
    throw cannotListen(hostname, port, cause);
  }
  console.log(listeningLine(hostname, listener.server));
  return { workspace: workspace.root, listener };
}
