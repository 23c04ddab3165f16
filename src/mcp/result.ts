import { fail, ok } from "../tools/result.ts";
import type { ToolResult } from "../tools/types.ts";
import type { CallToolResult, ContentBlock } from "./wire.ts";

/** Bytes of base64 text once decoded (padding excluded). */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/**
 * One content block as text for the model: text as it is; an image or audio clip as a note (the model APIs prx
 * speaks take no media in tool results); an embedded resource's text under its URI, or a note for binary data; a
 * resource link as a note with its URI.
 */
export function blockText(block: ContentBlock): string {
  const b = block as Record<string, unknown> & { type: string };
  switch (b.type) {
    case "text":
      if (typeof b.text === "string") return b.text;
      break;
    case "image":
    case "audio":
      if (typeof b.data === "string") {
        return `[${b.type} ${String(b.mimeType ?? "")}, ${decodedBytes(b.data)} bytes: not shown to the model]`;
      }
      break;
    case "resource": {
      const r = b.resource as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown } | undefined;
      if (r && typeof r.uri === "string") {
        const mime = typeof r.mimeType === "string" ? ` (${r.mimeType})` : "";
        if (typeof r.text === "string") return `[resource ${r.uri}${mime}]\n${r.text}`;
        const size = typeof r.blob === "string" ? `, ${decodedBytes(r.blob)} bytes of binary data` : "";
        return `[resource ${r.uri}${mime}${size}: not shown to the model]`;
      }
      break;
    }
    case "resource_link":
      if (typeof b.uri === "string") {
        const name = typeof b.name === "string" ? ` "${b.name}"` : "";
        return `[resource link${name}: ${b.uri}]`;
      }
      break;
  }
  return `[content of type "${b.type}" left out: prx does not read it]`;
}

/** A tools/call result as the registry's ToolResult. `isError` results are failures whose error is their text. */
export function toToolResult(result: CallToolResult): ToolResult {
  let text = result.content.map(blockText).join("\n");
  if (result.content.length === 0 && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError) return fail(text || "the tool reported an error without a message");
  return ok(text);
}
