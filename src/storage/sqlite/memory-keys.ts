import type { MemoryKeyScope } from "../types.ts";

/** SQL conditions (on `memories m`) that keep a recall within a key scope: an agent's own memory, or the shared one. */
const WITH_PREFIX = "substr(m.key, 1, length($prefix)) = $prefix";
const NOT_HIDDEN = "NOT EXISTS (SELECT 1 FROM json_each($hidden) h WHERE substr(m.key, 1, length(h.value)) = h.value)";

export interface KeyConditions {
  where: readonly string[];
  params: Readonly<Record<string, string>>;
}
const NO_KEY_CONDITIONS: KeyConditions = { where: [], params: {} };

/** The conditions and parameters of a key scope (none when it allows every key). */
export function keyConditions(keys: MemoryKeyScope | undefined): KeyConditions {
  if (keys?.prefix === undefined && !keys?.hiddenPrefixes?.length) return NO_KEY_CONDITIONS;
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (keys?.prefix !== undefined) {
    where.push(WITH_PREFIX);
    params.prefix = keys.prefix;
  }
  if (keys?.hiddenPrefixes?.length) {
    where.push(NOT_HIDDEN);
    params.hidden = JSON.stringify(keys.hiddenPrefixes);
  }
  return { where, params };
}

