import { FABRIC_REPLICA_TTL_MS } from "./limits.ts";
import { ReplicaAnnouncementSchema, type ReplicaAnnouncement } from "./messages.ts";

/** The replica registry as HGETALL answers it: field/value pairs flat (RESP2) or an object (RESP3). */
export type RegistryReply = Record<string, string> | string[];

export interface RegistryRead {
  /** Entries that parse and are young enough to keep (a replica whose clock is a little behind keeps its entry). */
  entries: Map<string, ReplicaAnnouncement>;
  /** Entries to remove: not an announcement, or older than twice FABRIC_REPLICA_TTL_MS. */
  stale: string[];
}

/** Read the registry's entries at `now`; one entry that is not JSON or not an announcement is stale, never an error. */
export function readRegistry(reply: RegistryReply, now: number): RegistryRead {
  const entries = new Map<string, ReplicaAnnouncement>();
  const stale: string[] = [];
  for (const [id, raw] of Array.isArray(reply) ? pairs(reply) : Object.entries(reply)) {
    const parsed = ReplicaAnnouncementSchema.safeParse(parseJson(raw));
    if (!parsed.success || now - parsed.data.at > 2 * FABRIC_REPLICA_TTL_MS) stale.push(id);
    else entries.set(id, parsed.data);
  }
  return { entries, stale };
}

/** Whether an announcement made at `at` still counts at `now`. */
export function isAnnouncementLive(at: number, now: number): boolean {
  return now - at <= FABRIC_REPLICA_TTL_MS;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined; // not JSON: the schema refuses it and the entry is stale
  }
}

function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}
