import { describe, expect, test } from "bun:test";
import { MCP_TOOL_NAME_MAX_CHARS } from "../../src/config/mcp.ts";
import { createLogger } from "../../src/core/logger.ts";
import {
  MCP_MAX_DESCRIPTION_BYTES,
  MCP_MAX_LIST_PAGES,
  MCP_MAX_SCHEMA_BYTES,
  MCP_MAX_TOOLS_PER_SERVER,
} from "../../src/mcp/limits.ts";
import { toToolResult } from "../../src/mcp/result.ts";
import { readPages, readToolEntries } from "../../src/mcp/tool-list.ts";
import { CallToolResultSchema } from "../../src/mcp/wire.ts";
import { TRUNCATION_MARKER } from "../../src/tools/result.ts";
import { captureLog } from "./helpers.ts";

const logger = createLogger("mcp.test");
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: "object", properties: {} }, ...extra });
const tools = (n: number) => Array.from({ length: n }, (_, i) => tool(`t${i}`));

/** A schema whose JSON text is exactly `bytes` long. */
function schemaOf(bytes: number): Record<string, unknown> {
  const base = JSON.stringify({ type: "object", description: "" }).length;
  return { type: "object", description: "d".repeat(bytes - base) };
}

describe("reading a server's tool list", () => {
  test("a tool with an invalid schema is left out with a warning naming the server and the tool", async () => {
    await captureLog(async (lines) => {
      const read = readToolEntries("fx", [tool("good"), { name: "str", inputSchema: { type: "string" } }, { name: "none" }, { inputSchema: { type: "object" } }], logger);
      expect(read.map((t) => t.name)).toEqual(["good"]);
      const warnings = lines.filter((l) => l.includes("WARN"));
      expect(warnings).toHaveLength(3);
      expect(warnings[0]).toContain('MCP server "fx": tool "str" skipped: invalid definition (inputSchema.type');
      expect(warnings[1]).toContain('tool "none" skipped');
      expect(warnings[2]).toContain("tool #4 skipped");
    });
  });

  test(`a tool name of ${MCP_TOOL_NAME_MAX_CHARS} characters is read; a longer one leaves the tool out`, async () => {
    await captureLog(async (lines) => {
      const fits = "n".repeat(MCP_TOOL_NAME_MAX_CHARS);
      expect(readToolEntries("fx", [tool(fits), tool(`${fits}n`)], logger).map((t) => t.name)).toEqual([fits]);
      expect(lines.join("\n")).toContain("skipped: invalid definition (name:");
    });
  });

  test("a repeated name keeps the first definition", async () => {
    await captureLog(async (lines) => {
      const read = readToolEntries("fx", [tool("a", { description: "first" }), tool("a", { description: "second" })], logger);
      expect(read).toEqual([{ name: "a", description: "first", inputSchema: { type: "object", properties: {} } }]);
      expect(lines.join("\n")).toContain("lists the name twice");
    });
  });

  test(`an input schema of ${MCP_MAX_SCHEMA_BYTES} bytes is kept; one byte more leaves the tool out`, async () => {
    await captureLog(async (lines) => {
      const read = readToolEntries("fx", [tool("fits", { inputSchema: schemaOf(MCP_MAX_SCHEMA_BYTES) }), tool("over", { inputSchema: schemaOf(MCP_MAX_SCHEMA_BYTES + 1) })], logger);
      expect(read.map((t) => t.name)).toEqual(["fits"]);
      expect(lines.join("\n")).toContain(`has ${MCP_MAX_SCHEMA_BYTES + 1} bytes, over ${MCP_MAX_SCHEMA_BYTES}`);
    });
  });

  test(`a description of ${MCP_MAX_DESCRIPTION_BYTES} bytes is kept whole; a longer one is cut to it`, () => {
    const [fits, over] = readToolEntries("fx", [tool("a", { description: "d".repeat(MCP_MAX_DESCRIPTION_BYTES) }), tool("b", { description: "d".repeat(MCP_MAX_DESCRIPTION_BYTES + 1) })], logger);
    expect(fits!.description).toBe("d".repeat(MCP_MAX_DESCRIPTION_BYTES));
    expect(Buffer.byteLength(over!.description)).toBeLessThanOrEqual(MCP_MAX_DESCRIPTION_BYTES);
    expect(over!.description).toEndWith(TRUNCATION_MARKER.replace("{limit}", String(MCP_MAX_DESCRIPTION_BYTES)));
  });

  test("a tool without a description shows its title", () => {
    expect(readToolEntries("fx", [tool("a", { title: "The A tool" })], logger)[0]!.description).toBe("The A tool");
  });

  test(`${MCP_MAX_TOOLS_PER_SERVER} tools are kept; past that the rest are left out with a warning`, async () => {
    expect(readToolEntries("fx", tools(MCP_MAX_TOOLS_PER_SERVER), logger)).toHaveLength(MCP_MAX_TOOLS_PER_SERVER);
    await captureLog(async (lines) => {
      expect(readToolEntries("fx", tools(MCP_MAX_TOOLS_PER_SERVER + 1), logger)).toHaveLength(MCP_MAX_TOOLS_PER_SERVER);
      expect(lines.join("\n")).toContain(`more than ${MCP_MAX_TOOLS_PER_SERVER} tools`);
    });
  });

  test(`pages are followed up to ${MCP_MAX_LIST_PAGES}; a server with more is cut there`, async () => {
    const paged = (pages: number) => async (cursor: string | undefined) => {
      const n = cursor === undefined ? 0 : Number(cursor);
      return { items: [n], ...(n + 1 < pages ? { nextCursor: String(n + 1) } : {}) };
    };
    expect(await readPages(paged(MCP_MAX_LIST_PAGES), 10_000)).toEqual({
      items: Array.from({ length: MCP_MAX_LIST_PAGES }, (_, i) => i),
      truncated: false,
    });
    const over = await readPages(paged(MCP_MAX_LIST_PAGES + 1), 10_000);
    expect(over.items).toHaveLength(MCP_MAX_LIST_PAGES);
    expect(over.truncated).toBe(true);
  });

  test("reading stops once the item limit is passed", async () => {
    const endless = async () => ({ items: [1, 2, 3], nextCursor: "more" });
    expect(await readPages(endless, 7)).toEqual({ items: [1, 2, 3, 1, 2, 3, 1], truncated: true });
  });
});

describe("a tool result as the model sees it", () => {
  const read = (raw: unknown) => {
    const parsed = CallToolResultSchema.safeParse(raw);
    if (!parsed.success) throw parsed.error;
    return toToolResult(parsed.data);
  };

  test("text blocks are joined; images, binary resources and links become notes; embedded text is shown", () => {
    const result = read({
      content: [
        { type: "text", text: "first" },
        { type: "image", data: Buffer.from("12345678").toString("base64"), mimeType: "image/png" },
        { type: "audio", data: Buffer.from("abcd").toString("base64"), mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: Buffer.from("abc").toString("base64") } },
        { type: "resource_link", uri: "https://example.invalid/x", name: "x" },
        { type: "hologram", beams: 3 },
      ],
    });
    expect(result).toEqual({
      success: true,
      error: null,
      output: [
        "first",
        "[image image/png, 8 bytes: not shown to the model]",
        "[audio audio/wav, 4 bytes: not shown to the model]",
        "[resource file:///a.txt (text/plain)]\ninside",
        "[resource file:///b.bin, 3 bytes of binary data: not shown to the model]",
        '[resource link "x": https://example.invalid/x]',
        '[content of type "hologram" left out: prx does not read it]',
      ].join("\n"),
    });
  });

  test("isError makes a failure whose error is the tool's text", () => {
    expect(read({ content: [{ type: "text", text: "no such repo" }], isError: true })).toEqual({ success: false, output: "", error: "no such repo" });
    expect(read({ content: [], isError: true }).error).toBe("the tool reported an error without a message");
  });

  test("a result that is not a tool result is refused by the schema behind the hand check", () => {
    expect(CallToolResultSchema.safeParse({ content: [{ type: "text", text: 3 }] }).success).toBe(true); // an unknown block
    expect(CallToolResultSchema.safeParse({ content: "text" }).success).toBe(false);
    expect(CallToolResultSchema.safeParse({ content: [], isError: "yes" }).success).toBe(false);
  });

  test("structured content alone is shown as JSON", () => {
    expect(read({ content: [], structuredContent: { temperature: 21 } }).output).toBe('{"temperature":21}');
  });
});
