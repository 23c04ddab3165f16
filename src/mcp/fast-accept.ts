import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isPlainObject } from "../core/fast-accept/index.ts";
import type { CallToolResult } from "./wire.ts";

/**
 * The two reads of every tool call's answer checked by hand in front of their zod schemas, which decide everything
 * else and write every error: the JSON-RPC message (the SDK's JSONRPCMessageSchema, a union of four that a result
 * reaches third) and the tools/call result of text blocks (wire.ts's CallToolResultSchema). Each check accepts only
 * what its schema accepts and returns the value as it is, which holds the same data the schema's copy would
 * (test/mcp/fast-accept.test.ts runs both on one corpus). What it buys: ~1.5 and ~0.85 us of zod per call hot, more
 * in a client woken per call; the MCP suite's round trip through prx against the SDK's own client.
 */
/**
 * A result response as JSONRPCResultResponseSchema accepts it: exactly `jsonrpc: "2.0"`, an id (a string or an
 * integer) and an object result without `_meta` (zod checks a result that carries one).
 */
export function isPlainResultResponse(v: unknown): v is JSONRPCMessage {
  if (!isPlainObject(v) || v.jsonrpc !== "2.0") return false;
  const id = v.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return false;
  const result = v.result;
  if (!isPlainObject(result) || result._meta !== undefined) return false;
  let keys = 0;
  for (const key in v) {
    if (key !== "jsonrpc" && key !== "id" && key !== "result") return false;
    keys++;
  }
  return keys === 3;
}

/** A tools/call result of text blocks only, with no structured content and `isError` absent or a boolean. */
export function isPlainTextResult(v: unknown): v is CallToolResult {
  if (!isPlainObject(v) || v.structuredContent !== undefined) return false;
  if (v.isError !== undefined && typeof v.isError !== "boolean") return false;
  const content = v.content;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isPlainObject(block) || block.type !== "text" || typeof block.text !== "string") return false;
  }
  return true;
}
