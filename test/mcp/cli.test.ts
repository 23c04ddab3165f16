/** `prx mcp list|tools|call|resources|prompts` through the built binary. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { McpServerStatusSchema } from "../../src/contracts/mcp.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { EVERYTHING, FIXTURE } from "./helpers.ts";

setDefaultTimeout(60_000);

const bun = JSON.stringify(process.execPath);
const CONFIG =
  `[mcp.servers.everything]\ncommand = ${bun}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\nexclude = ["toggle-*"]\n` +
  `[mcp.servers.fx]\ncommand = ${bun}\nargs = [${JSON.stringify(FIXTURE)}]\ntools = ["echo", "fail"]\n` +
  `[mcp.servers.off]\ncommand = "prx-test-never-started"\nenabled = false\n`;

let dir = "";
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  await ensureBinary();
  const ws = tempWorkspace(CONFIG);
  cleanups.push(ws.cleanup);
  dir = ws.dir;
}, 300_000);
afterAll(() => cleanups.forEach((c) => c()));

const prx = (...args: string[]) => runPrx(["mcp", ...args, "-w", dir], { env: { PRX_LOG: "error" } });

describe("prx mcp (binary)", () => {
  test("list starts every enabled server and shows its state and tools as the model sees them", async () => {
    const result = await prx("list", "--json");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const servers = (JSON.parse(result.stdout) as { servers: unknown[] }).servers.map((s) => McpServerStatusSchema.parse(s));
    expect(servers.map((s) => [s.name, s.state])).toEqual([["everything", "ready"], ["fx", "ready"], ["off", "disabled"]]);
    const everything = servers[0]!;
    expect(everything.tools.map((t) => t.name)).toContain("mcp__everything__echo");
    expect(everything.tools.some((t) => t.tool.startsWith("toggle-"))).toBe(false);
    expect(servers[1]!.tools.map((t) => t.name)).toEqual(["mcp__fx__echo", "mcp__fx__fail"]);
    const text = await prx("list");
    expect(text.stdout).toMatch(/^SERVER\s+STATE\s+TRANSPORT\s+TOOLS\s+TARGET\n/);
    expect(text.stdout).toContain("mcp__fx__echo — Echo the text back");
  });

  test("tools shows each tool's model name and input schema; a left-out tool says so", async () => {
    const result = await prx("tools", "fx", "--json");
    expect(result.code).toBe(0);
    const { tools } = JSON.parse(result.stdout) as { tools: Array<{ name: string | null; tool: string; description: string; input_schema: unknown }> };
    expect(tools.find((t) => t.tool === "echo")).toEqual({
      name: "mcp__fx__echo",
      tool: "echo",
      description: "Echo the text back",
      input_schema: { type: "object", properties: { text: { type: "string" } } },
    });
    expect(tools.find((t) => t.tool === "crash")?.name).toBeNull();
    expect((await prx("tools", "fx")).stdout).toContain("crash (left out by tools / exclude)");
  });

  test("call runs a tool through the registry: output on success, exit 1 and the error on failure", async () => {
    const ok = await prx("call", "everything", "get-sum", '{"a":19,"b":23}');
    expect([ok.code, ok.stdout.trim()]).toEqual([0, "The sum of 19 and 23 is 42."]);
    const failed = await prx("call", "fx", "fail");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("error: the fixture failed on purpose\n");
    const json = await prx("call", "fx", "echo", '{"text":"j"}', "--json");
    expect(JSON.parse(json.stdout)).toEqual({ server: "fx", tool: "echo", success: true, output: "j", error: null });
  });

  test("a tool left out by the allowlist, an unknown server and bad arguments are refused with what to do", async () => {
    const excluded = await prx("call", "fx", "crash");
    expect(excluded.code).toBe(1);
    expect(excluded.stderr).toContain('MCP server "fx" offers no tool "crash"');
    expect(excluded.stderr).toContain("its tools: echo, fail");
    const unknown = await prx("tools", "nope");
    expect(unknown.stderr).toContain('no MCP server named "nope"');
    expect(unknown.stderr).toContain("configured servers: everything, fx, off");
    const bad = await prx("call", "fx", "echo", "[1]");
    expect([bad.code, bad.stderr.trim()]).toEqual([2, "error: prx mcp call: the arguments must be a JSON object"]);
  });

  test("resources and prompts of a server", async () => {
    const resources = await prx("resources", "everything");
    expect(resources.code).toBe(0);
    expect(resources.stdout).toMatch(/^URI\s+NAME\s+TYPE\n/);
    expect(resources.stdout).toContain("demo://resource/static/document/");
    const prompts = await prx("prompts", "everything");
    expect(prompts.stdout).toContain("args-prompt(city, state?) — A prompt with two arguments");
    expect((await prx("prompts", "fx")).stdout.trim()).toBe("fx offers no prompts");
  });

  test("a workspace without servers, and an unknown subcommand, are usage errors", async () => {
    const empty = tempWorkspace("");
    cleanups.push(empty.cleanup);
    const none = await runPrx(["mcp", "list", "-w", empty.dir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no MCP server in");
    const typo = await prx("lst");
    expect([typo.code, typo.stderr.trim()]).toEqual([2, "error: prx mcp: unknown subcommand 'lst'; did you mean 'list'? (see prx mcp --help)"]);
  });
});
