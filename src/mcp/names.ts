import { createHash } from "node:crypto";
import { TOOL_NAME_PATTERN } from "../core/tool-names.ts";

/** Every MCP tool the model sees is named `mcp__<server>__<tool>`. */
export const MCP_TOOL_PREFIX = "mcp__";
/** The most characters of a tool name the model APIs accept (TOOL_NAME_PATTERN). */
export const MODEL_TOOL_NAME_MAX = 64;
/** Hex digits of the hash a renamed tool carries: `_<hash>` keeps it apart from every other name. */
const HASH_DIGITS = 8;

export interface ServerTool {
  server: string;
  /** The tool's name as its server declares it. */
  tool: string;
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_DIGITS);
}

/**
 * The model's name for a server's tool. `mcp__<server>__<tool>` when that is already a valid name (server names are
 * validated so the prefix says where the server's name ends: two servers' tools never share such a name). Otherwise
 * characters outside [A-Za-z0-9_-] become `_`, the result is cut to fit, and `_<hash of the original tool name>` is
 * appended: the name depends on that tool alone, so it never changes when the server adds or removes other tools.
 */
export function modelToolName(server: string, tool: string): string {
  const plain = `${MCP_TOOL_PREFIX}${server}__${tool}`;
  if (TOOL_NAME_PATTERN.test(plain)) return plain;
  const cleaned = plain.replace(/[^A-Za-z0-9_-]/g, "_");
  const suffix = `_${hashOf(tool)}`;
  return cleaned.slice(0, MODEL_TOOL_NAME_MAX - suffix.length) + suffix;
}

/**
 * Model names for a set of server tools, deterministic whatever their order: each gets modelToolName; should two
 * still meet (a renamed tool whose result equals another tool's own name, or equal hashes), the one first in
 * (server, tool) order keeps it and the others add `_2`, `_3`, ... in that order.
 */
export function assignToolNames(tools: readonly ServerTool[]): Map<string, ServerTool> {
  const sorted = [...tools].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const byName = new Map<string, ServerTool>();
  const wanted = sorted.map((entry) => modelToolName(entry.server, entry.tool));
  // names needing no suffix are taken first, so a clash never renames a tool whose name is its own
  const plain = sorted.map((entry, i) => wanted[i] === `${MCP_TOOL_PREFIX}${entry.server}__${entry.tool}`);
  const order = [...sorted.keys()].sort((a, b) => Number(plain[b]) - Number(plain[a]) || a - b);
  for (const i of order) {
    const base = wanted[i]!;
    let name = base;
    for (let n = 2; byName.has(name); n++) {
      const tail = `_${n}`;
      name = base.slice(0, MODEL_TOOL_NAME_MAX - tail.length) + tail;
    }
    byName.set(name, sorted[i]!);
  }
  return byName;
}

/** Code-unit order, the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `tool` (the server's own name) passes `[mcp.servers.<name>] tools` and `exclude`. */
export function toolAllowed(tool: string, allow: readonly string[] | undefined, exclude: readonly string[]): boolean {
  const matches = (pattern: string) => (pattern.endsWith("*") ? tool.startsWith(pattern.slice(0, -1)) : tool === pattern);
  if (allow !== undefined && !allow.some(matches)) return false;
  return !exclude.some(matches);
}
