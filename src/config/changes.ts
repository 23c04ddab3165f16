import type { Config } from "./schema.ts";

/**
 * Settings a running process took at its start and cannot change while it runs: the address the gateway listens on
 * (and whether it may be public), the database and the bus. Every other key is applied by a reload.
 */
export const GATEWAY_RESTART_KEYS = ["host", "port", "allow_public_bind"] as const;
/** Sections some or all of whose keys only a restart applies; a change is reported per key ("gateway.port"). */
const RESTART_SECTIONS = ["gateway", "storage", "bus"] as const;
/** Keys inside a restart section that a reload applies: every `[gateway]` key but the listen address. */
function appliedLive(path: string): boolean {
  const [section, key] = path.split(".");
  return section === "gateway" && !(GATEWAY_RESTART_KEYS as readonly string[]).includes(key!);
}
/** Sections whose entries are named tables: a change is reported per entry ("providers.openai"). */
const NAMED_SECTIONS = new Set(["providers", "channels", "plugins", "agents"]);

export interface ConfigChanges {
  /** Dotted keys that differ, per top-level key, or per named entry of providers, channels, plugins, mcp.servers. */
  changed: string[];
  /** Of those, the ones a reload cannot apply: a restart does. */
  restart: string[];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function entries(section: unknown): Record<string, unknown> {
  return typeof section === "object" && section !== null ? (section as Record<string, unknown>) : {};
}

/** Names of the entries of two tables that differ (added, removed or changed), sorted. */
function changedNames(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !same(before[name], after[name])).sort();
}

/** What differs between the configuration in effect and a new one, and what of that needs a restart. */
export function configChanges(before: Config, after: Config): ConfigChanges {
  const changed: string[] = [];
  const restart: string[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const key of keys) {
    const a = (before as Record<string, unknown>)[key];
    const b = (after as Record<string, unknown>)[key];
    if (same(a, b)) continue;
    if ((RESTART_SECTIONS as readonly string[]).includes(key)) {
      for (const inner of changedNames(entries(a), entries(b))) {
        const path = `${key}.${inner}`;
        changed.push(path);
        if (!appliedLive(path)) restart.push(path);
      }
    } else if (NAMED_SECTIONS.has(key)) {
      for (const name of changedNames(entries(a), entries(b))) changed.push(`${key}.${name}`);
    } else if (key === "mcp") {
      const servers = changedNames(entries(entries(a).servers), entries(entries(b).servers));
      for (const name of servers) changed.push(`mcp.servers.${name}`);
      if (!same(entries(a).serve, entries(b).serve)) changed.push("mcp.serve");
    } else changed.push(key);
  }
  return { changed, restart };
}
