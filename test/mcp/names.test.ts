import { describe, expect, test } from "bun:test";
import { TOOL_NAME_PATTERN } from "../../src/core/tool-names.ts";
import { MCP_SERVER_NAME_MAX } from "../../src/config/mcp.ts";
import { assignToolNames, MODEL_TOOL_NAME_MAX, modelToolName, toolAllowed, type ServerTool } from "../../src/mcp/names.ts";

const namesOf = (tools: ServerTool[]) =>
  Object.fromEntries([...assignToolNames(tools)].map(([name, t]) => [`${t.server}/${t.tool}`, name]));

describe("model tool names", () => {
  test("a valid name is mcp__<server>__<tool> unchanged", () => {
    expect(modelToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(modelToolName("every-thing", "get-sum")).toBe("mcp__every-thing__get-sum");
  });

  test("characters the model APIs reject become _ and the name carries a hash of the original", () => {
    const name = modelToolName("fs", "read.file");
    expect(name).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    expect(name).toMatch(TOOL_NAME_PATTERN);
    // "read file" cleans to the same text but its hash differs
    expect(modelToolName("fs", "read file")).not.toBe(name);
    expect(modelToolName("fs", "read file")).toMatch(TOOL_NAME_PATTERN);
  });

  test(`a name of exactly ${MODEL_TOOL_NAME_MAX} characters is kept; one more is cut and hashed`, () => {
    const prefix = "mcp__s__";
    const fits = "t".repeat(MODEL_TOOL_NAME_MAX - prefix.length);
    expect(modelToolName("s", fits)).toBe(prefix + fits);
    const long = modelToolName("s", fits + "t");
    expect(long).toHaveLength(MODEL_TOOL_NAME_MAX);
    expect(long).toMatch(/_[0-9a-f]{8}$/);
    expect(long).toMatch(TOOL_NAME_PATTERN);
  });

  test("the longest server name leaves room for a tool name", () => {
    const server = "s".repeat(MCP_SERVER_NAME_MAX);
    expect(modelToolName(server, "tool")).toMatch(TOOL_NAME_PATTERN);
    expect(modelToolName(server, "x".repeat(300))).toMatch(TOOL_NAME_PATTERN);
  });

  test("unicode and empty-looking names still give valid names", () => {
    for (const tool of ["überprüfen", "日本語", "a/b\\c", " ", "🙂"]) expect(modelToolName("s", tool)).toMatch(TOOL_NAME_PATTERN);
  });

  test("every assigned name is unique and valid, whatever collides", () => {
    const tools: ServerTool[] = [
      { server: "a", tool: "x.y" },
      { server: "a", tool: "x y" },
      { server: "a", tool: "x/y" },
      { server: "a", tool: "x_y" },
      { server: "b", tool: "x.y" },
      { server: "a_b", tool: "c" },
      { server: "a", tool: "b__c" },
    ];
    const names = [...assignToolNames(tools).keys()];
    expect(new Set(names).size).toBe(tools.length);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  test("names do not depend on the order tools arrive in", () => {
    const tools: ServerTool[] = [
      { server: "a", tool: "x.y" },
      { server: "a", tool: "x y" },
      { server: "b", tool: "q" },
      { server: "a", tool: "x_y" },
    ];
    const forward = namesOf(tools);
    expect(namesOf([...tools].reverse())).toEqual(forward);
    expect(namesOf([tools[2]!, tools[0]!, tools[3]!, tools[1]!])).toEqual(forward);
    expect(forward["a/x_y"]).toBe("mcp__a__x_y");
  });

  test("a renamed tool keeps its name when the server adds another tool", () => {
    const before = namesOf([{ server: "a", tool: "x.y" }]);
    const after = namesOf([{ server: "a", tool: "x.y" }, { server: "a", tool: "x y" }, { server: "a", tool: "z" }]);
    expect(after["a/x.y"]).toBe(before["a/x.y"]!);
  });

  test("when a renamed tool's result equals another tool's own name, the own name wins and the other gets _2", () => {
    const renamed = modelToolName("a", "x.y"); // mcp__a__x_y_<hash>
    const own = renamed.slice("mcp__a__".length); // a tool literally named x_y_<hash>
    const names = namesOf([{ server: "a", tool: "x.y" }, { server: "a", tool: own }]);
    expect(names[`a/${own}`]).toBe(renamed);
    expect(names["a/x.y"]).toBe(`${renamed}_2`);
  });
});

describe("tools allowlist and exclude", () => {
  test("no allowlist offers every tool; exclude removes names and prefixes", () => {
    expect(toolAllowed("read", undefined, [])).toBe(true);
    expect(toolAllowed("delete_repo", undefined, ["delete_*"])).toBe(false);
    expect(toolAllowed("read", undefined, ["re"])).toBe(true);
  });

  test("an allowlist offers only what it names (or prefixes); exclude still wins", () => {
    expect(toolAllowed("get_issue", ["get_*"], [])).toBe(true);
    expect(toolAllowed("create_issue", ["get_*"], [])).toBe(false);
    expect(toolAllowed("get_secret", ["get_*"], ["get_secret"])).toBe(false);
    expect(toolAllowed("anything", [], [])).toBe(false);
  });
});
