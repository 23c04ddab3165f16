import type { Logger } from "../core/logger.ts";
import { PromptEntrySchema, ResourceEntrySchema } from "./wire.ts";

/** A resource a server offers, as `prx mcp resources` and GET /api/mcp/<server> list it. */
export interface McpResourceInfo {
  uri: string;
  name: string;
  description: string | null;
  mime_type: string | null;
}

/** A prompt a server offers, with its arguments. */
export interface McpPromptInfo {
  name: string;
  description: string | null;
  arguments: Array<{ name: string; required: boolean; description: string | null }>;
}

interface Read {
  items: unknown[];
  truncated: boolean;
}

function skipped(logger: Logger, server: string, kind: string, index: number, message: string | undefined): void {
  logger.warn(`MCP server "${server}": ${kind} #${index + 1} skipped: ${message ?? "invalid"}`);
}

function truncatedNote(logger: Logger, server: string, kind: string, read: Read): void {
  if (read.truncated) logger.warn(`MCP server "${server}" lists more ${kind}s than prx reads; the rest are left out`);
}

export function readResources(server: string, read: Read, logger: Logger): McpResourceInfo[] {
  truncatedNote(logger, server, "resource", read);
  const out: McpResourceInfo[] = [];
  for (const [index, entry] of read.items.entries()) {
    const parsed = ResourceEntrySchema.safeParse(entry);
    if (!parsed.success) {
      skipped(logger, server, "resource", index, parsed.error.issues[0]?.message);
      continue;
    }
    const r = parsed.data;
    out.push({ uri: r.uri, name: r.title ?? r.name, description: r.description ?? null, mime_type: r.mimeType ?? null });
  }
  return out;
}

export function readPrompts(server: string, read: Read, logger: Logger): McpPromptInfo[] {
  truncatedNote(logger, server, "prompt", read);
  const out: McpPromptInfo[] = [];
  for (const [index, entry] of read.items.entries()) {
    const parsed = PromptEntrySchema.safeParse(entry);
    if (!parsed.success) {
      skipped(logger, server, "prompt", index, parsed.error.issues[0]?.message);
      continue;
    }
    const p = parsed.data;
    out.push({
      name: p.name,
      description: p.description ?? p.title ?? null,
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required ?? false, description: a.description ?? null })),
    });
  }
  return out;
}
