import type { Workspace } from "../core/workspace-paths.ts";

/** Where a running gateway's presence record lives: data/gateway.json (presence-write.ts writes it, presence.ts reads it). */
export const presencePath = (workspace: Pick<Workspace, "dataDir">) => `${workspace.dataDir}/gateway.json`;
