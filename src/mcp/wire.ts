import { z } from "zod";
import { MCP_TOOL_NAME_MAX_CHARS } from "../config/mcp.ts";

/**
 * What MCP servers send, as prx reads it: one schema per message kind, loose where the protocol lets servers add
 * fields. Lists are read as arrays of unknown entries and each entry is checked on its own, so one bad tool leaves
 * out that tool and not the server's whole list.
 */

const Cursor = z.string().optional();

export const ToolsPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: Cursor });
export const ResourcesPageSchema = z.looseObject({ resources: z.array(z.unknown()), nextCursor: Cursor });
export const PromptsPageSchema = z.looseObject({ prompts: z.array(z.unknown()), nextCursor: Cursor });

/** A JSON Schema property: an object or a boolean schema. */
const PropertySchema = z.union([z.record(z.string(), z.unknown()), z.boolean()]);

/** MCP requires a tool's input schema to describe an object; model APIs require the same of tool parameters. */
export const ToolInputSchemaSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), PropertySchema).optional(),
  required: z.array(z.string()).optional(),
});

export const ToolEntrySchema = z.looseObject({
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: ToolInputSchemaSchema,
  /** MCP tool annotations: hints, not guarantees; prx reads readOnlyHint for the tool's risk class. */
  annotations: z.looseObject({ readOnlyHint: z.boolean().optional() }).optional().catch(undefined),
});
export type ToolEntry = z.infer<typeof ToolEntrySchema>;

export const ResourceEntrySchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});

export const PromptEntrySchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z
    .array(z.looseObject({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }))
    .optional(),
});

const TextContent = z.looseObject({ type: z.literal("text"), text: z.string() });
const MediaContent = z.looseObject({ type: z.enum(["image", "audio"]), data: z.string(), mimeType: z.string() });
const EmbeddedResource = z.looseObject({
  type: z.literal("resource"),
  resource: z.looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
});
const ResourceLink = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string().optional(),
  mimeType: z.string().optional(),
});

/** One content block of a tool result; unknown types are kept as `{type}` and shown as a note. */
export const ContentBlockSchema = z.union([
  TextContent,
  MediaContent,
  EmbeddedResource,
  ResourceLink,
  z.looseObject({ type: z.string() }),
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const CallToolResultSchema = z.looseObject({
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
