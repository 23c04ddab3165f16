import { describe, expect, test } from "bun:test";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { isPlainResultResponse, isPlainTextResult } from "../../src/mcp/fast-accept.ts";
import { CallToolResultSchema } from "../../src/mcp/wire.ts";
import { fastAcceptAgrees as agree, fieldVariants } from "../helpers/fast-accept.ts";

/** Values tried in every field: valid and invalid for one schema or another. */
const PROBES: unknown[] = [undefined, null, "", "x", "2.0", 0, -1, 1, 1.5, 2 ** 53, true, [], [{}], [{ type: "text", text: "t" }], {}, { a: 1 }];

const variants = (base: unknown, paths: string[][]) => fieldVariants(base, paths, PROBES);

describe("the MCP client's fast checks agree with their zod schemas (every tool call's answer)", () => {
  test("a JSON-RPC result response", () => {
    const base = { jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "ping" }] } };
    const corpus = [
      ...variants(base, [["jsonrpc"], ["id"], ["result"], ["result", "_meta"], ["extra"]]),
      { ...base, id: "req-7" },
      // a request or a notification from the server, an error response: zod reads them
      { jsonrpc: "2.0", id: 1, method: "roots/list" },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } },
      { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "both" } },
    ];
    const { fast, total } = agree(JSONRPCMessageSchema, isPlainResultResponse, corpus);
    expect(isPlainResultResponse(base)).toBe(true);
    expect(fast).toBeGreaterThan(3);
    expect(fast).toBeLessThan(total);
    // a result carrying _meta, and an id that is not an integer, go through zod
    expect(isPlainResultResponse({ ...base, result: { _meta: {} } })).toBe(false);
    expect(isPlainResultResponse({ ...base, id: 1.5 })).toBe(false);
    expect(isPlainResultResponse({ jsonrpc: "2.0", id: 1, method: "ping" })).toBe(false);
  });

  test("a tools/call result of text blocks", () => {
    const base = { content: [{ type: "text", text: "a" }, { type: "text", text: "b", annotations: { audience: ["user"] } }], isError: false };
    const corpus = [
      ...variants(base, [["content"], ["isError"], ["structuredContent"], ["content", "0"], ["content", "0", "type"], ["content", "0", "text"]]),
      { content: [] },
      { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      { content: [{ type: "text", text: "x" }], structuredContent: { a: 1 } },
    ];
    const { fast, total } = agree(CallToolResultSchema, isPlainTextResult, corpus);
    expect(isPlainTextResult(base)).toBe(true);
    expect(fast).toBeGreaterThan(3);
    expect(fast).toBeLessThan(total);
    // other blocks and structured content go through zod
    expect(isPlainTextResult({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] })).toBe(false);
    expect(isPlainTextResult({ content: [], structuredContent: { a: 1 } })).toBe(false);
  });
});
