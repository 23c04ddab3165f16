/** The hand checks in front of the wire schemas accept only what the schemas accept, and return it as they would. */
import { expect, test } from "bun:test";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcMessage } from "../../src/mcp/stdio-transport.ts";
import { CallToolResultSchema, CallToolResultShape } from "../../src/mcp/wire.ts";

const MESSAGES: unknown[] = [
  { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "a" }] } },
  { jsonrpc: "2.0", id: "abc", result: {} },
  { jsonrpc: "2.0", id: 1.5, result: {} },
  { jsonrpc: "2.0", id: null, result: {} },
  { jsonrpc: "2.0", id: 1, result: {}, extra: true },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 1 } } },
  { jsonrpc: "2.0", id: 1, result: { _meta: "not an object" } },
  { jsonrpc: "2.0", id: 1, result: [] },
  { jsonrpc: "1.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no" } },
  { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
  { jsonrpc: "2.0", id: 3, method: "ping" },
  { jsonrpc: "2.0", id: 1 },
  null,
  "text",
  [1, 2],
];

const RESULTS: unknown[] = [
  { content: [{ type: "text", text: "a" }] },
  { content: [{ type: "text", text: "a" }], isError: true },
  { content: [{ type: "text", text: "a" }], isError: "yes" },
  { content: [] },
  { content: [{ type: "text", text: 3 }] },
  { content: [{ type: "image", data: "AA==", mimeType: "image/png" }] },
  { content: [{ type: "text", text: "a" }], structuredContent: { x: 1 } },
  { content: "text" },
  {},
  { content: [null] },
  null,
];

test("the JSON-RPC hand check agrees with the SDK's schema", () => {
  for (const message of MESSAGES) {
    const fast = JsonRpcMessage.safeParse(message);
    const full = JSONRPCMessageSchema.safeParse(message);
    expect([JSON.stringify(message), fast.success]).toEqual([JSON.stringify(message), full.success]);
    if (fast.success && full.success) expect(fast.data).toEqual(full.data);
  }
});

test("the tool result hand check agrees with the schema", () => {
  for (const result of RESULTS) {
    const fast = CallToolResultSchema.safeParse(result);
    const full = CallToolResultShape.safeParse(result);
    expect([JSON.stringify(result), fast.success]).toEqual([JSON.stringify(result), full.success]);
    if (fast.success && full.success) expect(fast.data).toEqual(full.data);
  }
});
