import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Workspace } from "../core/workspace-paths.ts";
import type { GatewayPresence } from "./presence.ts";
import { presencePath } from "./presence-path.ts";

/** Writing and removing data/gateway.json (presence.ts reads it): at gateway start, without loading its schema. */

/** A token for this run's control requests: `prx_ctl_` and 32 random hex digits. */
export function newControlToken(): string {
  return `prx_ctl_${crypto.randomUUID().replaceAll("-", "")}`;
}

export function writePresence(workspace: Pick<Workspace, "dataDir">, presence: GatewayPresence): void {
  const path = presencePath(workspace);
  const staged = `${path}.${process.pid}.tmp`;
  writeFileSync(staged, JSON.stringify(presence, null, 2) + "\n", { mode: 0o600 });
  chmodSync(staged, 0o600);
  renameSync(staged, path);
}

/** Remove the record if it is still `pid`'s (a newer gateway of the workspace may have written its own since). */
export function clearPresence(workspace: Pick<Workspace, "dataDir">, pid: number): void {
  const path = presencePath(workspace);
  let pidInFile: unknown;
  try {
    pidInFile = (JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown }).pid;
  } catch {
    // gone already, or not a record a gateway wrote: nothing of this process's to remove
    return;
  }
  if (pidInFile === pid) rmSync(path, { force: true });
}

