import type { AutonomyConfig } from "../../config/schema.ts";
import { SUPERVISED_DEFAULT_ALLOW } from "./risk.ts";
import type { Permission, ToolRisk } from "./types.ts";

/** How a call is treated, and which setting says so (told to the model and the owner with a refusal). */
export interface PolicyAnswer {
  permission: Permission;
  setting: string;
}

/**
 * `[autonomy.tools]` first: the exact name, else the most specific pattern (most characters besides `*`); then the
 * level: read_only runs read tools and refuses the rest, supervised asks for everything but read tools (and the
 * agent's own memory), full asks for nothing.
 */
export function permissionFor(autonomy: AutonomyConfig, name: string, risk: ToolRisk): PolicyAnswer {
  const override = toolOverride(autonomy.tools, name);
  if (override) return { permission: override.permission, setting: `[autonomy.tools] "${override.key}" = "${override.permission}"` };
  const setting = `[autonomy] level = "${autonomy.level}"`;
  if (autonomy.level === "full" || risk === "read") return { permission: "allow", setting };
  if (autonomy.level === "read_only") return { permission: "deny", setting };
  return { permission: SUPERVISED_DEFAULT_ALLOW.has(name) ? "allow" : "ask", setting };
}

function toolOverride(tools: Readonly<Record<string, Permission>>, name: string): { key: string; permission: Permission } | undefined {
  const exact = tools[name];
  if (exact) return { key: name, permission: exact };
  let best: { key: string; permission: Permission; weight: number } | undefined;
  for (const [key, permission] of Object.entries(tools)) {
    if (!key.includes("*") || !globMatches(key, name)) continue;
    const weight = key.replaceAll("*", "").length;
    if (!best || weight > best.weight) best = { key, permission, weight };
  }
  return best;
}

/** `*` matches any text (none included); everything else matches itself. */
export function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === name;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}
