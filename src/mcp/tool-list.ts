import type { Logger } from "../core/logger.ts";
import { truncateUtf8 } from "../tools/result.ts";
import { MCP_MAX_DESCRIPTION_BYTES, MCP_MAX_LIST_PAGES, MCP_MAX_SCHEMA_BYTES, MCP_MAX_TOOLS_PER_SERVER } from "./limits.ts";
import { ToolEntrySchema } from "./wire.ts";

/** A server's tool as prx keeps it: its own name, the description the model sees, its input JSON Schema. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server declares the tool read-only (annotations.readOnlyHint): its calls are not asked about under [autonomy]. */
  readOnly?: boolean;
}

export interface Page {
  items: unknown[];
  nextCursor?: string;
}

/**
 * Every item of a paginated list, following `nextCursor` for at most MCP_MAX_LIST_PAGES pages and stopping once
 * `maxItems` are read; `truncated` says something was left unread.
 */
export async function readPages(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  maxItems: number,
): Promise<{ items: unknown[]; truncated: boolean }> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MCP_MAX_LIST_PAGES; page++) {
    const got = await fetchPage(cursor);
    items.push(...got.items);
    if (items.length > maxItems) return { items: items.slice(0, maxItems), truncated: true };
    if (got.nextCursor === undefined) return { items, truncated: false };
    cursor = got.nextCursor;
  }
  return { items, truncated: true };
}

/**
 * The tools of a tools/list answer that prx can offer a model: entries failing the tool schema (no object input
 * schema, no name), with a schema over MCP_MAX_SCHEMA_BYTES or repeating an earlier name are left out with a
 * warning naming the server and the tool; at most MCP_MAX_TOOLS_PER_SERVER are kept.
 */
export function readToolEntries(server: string, entries: readonly unknown[], logger: Logger): McpToolInfo[] {
  const tools: McpToolInfo[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const parsed = ToolEntrySchema.safeParse(entry);
    const label = labelOf(entry, index);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      logger.warn(`MCP server "${server}": tool ${label} skipped: invalid definition (${where}${issue?.message})`, {
        hint: "the server must declare a name and an inputSchema of type object; report it to the server's authors",
      });
      continue;
    }
    const tool = parsed.data;
    const schemaBytes = Buffer.byteLength(JSON.stringify(tool.inputSchema), "utf8");
    if (schemaBytes > MCP_MAX_SCHEMA_BYTES) {
      logger.warn(
        `MCP server "${server}": tool ${label} skipped: its input schema has ${schemaBytes} bytes, over ${MCP_MAX_SCHEMA_BYTES}`,
      );
      continue;
    }
    if (seen.has(tool.name)) {
      logger.warn(`MCP server "${server}": tool ${label} skipped: the server lists the name twice`);
      continue;
    }
    if (tools.length === MCP_MAX_TOOLS_PER_SERVER) {
      logger.warn(
        `MCP server "${server}": more than ${MCP_MAX_TOOLS_PER_SERVER} tools; the rest are left out`,
        { hint: `narrow them with [mcp.servers.${server}] tools = [...]` },
      );
      break;
    }
    seen.add(tool.name);
    const description = truncateUtf8(tool.description ?? tool.title ?? "", MCP_MAX_DESCRIPTION_BYTES);
    tools.push({ name: tool.name, description, inputSchema: tool.inputSchema, ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}) });
  }
  return tools;
}

function labelOf(entry: unknown, index: number): string {
  const name = (entry as { name?: unknown } | null)?.name;
  return typeof name === "string" ? JSON.stringify(name.slice(0, 100)) : `#${index + 1}`;
}
