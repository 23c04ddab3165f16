import { readFileSync } from "node:fs";
import { z } from "zod";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { Workspace } from "../core/workspace-paths.ts";
import { presencePath } from "./presence-path.ts";

/**
 * `data/gateway.json`: the running gateway of a workspace, as it tells the commands run beside it (`prx status`,
 * `prx plugins reload`, ...): where it listens and the control token it accepts for this run. Only the workspace's
 * owner can read it (0600, as the database is); the token dies with the process.
 */
export const GatewayPresenceSchema = z.object({
  pid: z.number().int().positive(),
  url: z.url(),
  version: z.string(),
  started_at: z.string(),
  control_token: z.string().min(1),
});
export type GatewayPresence = z.infer<typeof GatewayPresenceSchema>;


function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readRecord(workspace: Pick<Workspace, "dataDir">): GatewayPresence | null {
  const path = presencePath(workspace);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new PrxError("WORKSPACE", `cannot read ${path}: ${errorMessage(error)}`, { hint: "check the permissions of the workspace's data directory" });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = GatewayPresenceSchema.safeParse(raw);
  // a record cut short by a crash mid-write, or of another version: no gateway can be reached through it
  return parsed.success ? parsed.data : null;
}

/** The workspace's running gateway, or null when none has told (or the one that did is gone). */
export function readPresence(workspace: Pick<Workspace, "dataDir">): GatewayPresence | null {
  const record = readRecord(workspace);
  return record && alive(record.pid) ? record : null;
}
