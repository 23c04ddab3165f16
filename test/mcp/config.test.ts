import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/loader.ts";
import {
  MCP_MAX_ARGS,
  MCP_MAX_SERVERS,
  MCP_SERVE_DEFAULT_TOOLS,
  MCP_SERVER_NAME_MAX,
  MCP_TOOL_NAME_MAX_CHARS,
} from "../../src/config/mcp.ts";
import { defaultConfig } from "../../src/config/schema.ts";

function parseError(toml: string): string {
  try {
    parseConfig(toml);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`expected the config to be refused:\n${toml}`);
}

function servers(count: number): string {
  return Array.from({ length: count }, (_, i) => `[mcp.servers.s${i}]\ncommand = "x"\n`).join("");
}

describe("[mcp] in config.toml", () => {
  test("a stdio server and a url server with every key", () => {
    const config = parseConfig(`
[mcp.servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { LOG_LEVEL = "debug" }
env_from = { GITHUB_PERSONAL_ACCESS_TOKEN = "GITHUB_TOKEN" }
cwd = "servers"
tools = ["get_*", "search_code"]
exclude = ["get_secret"]
timeout_ms = 5000
startup_timeout_ms = 20000

[mcp.servers.docs]
url = "https://mcp.example.invalid/mcp"
headers_from_env = { Authorization = "Bearer \${DOCS_TOKEN}", X-Api-Key = "DOCS_KEY" }
eager = true
enabled = false

[mcp.serve]
tools = ["memory_recall", "prx_chat", "@plugins"]
`);
    expect(config.mcp.servers.github).toMatchObject({ command: "npx", env_from: { GITHUB_PERSONAL_ACCESS_TOKEN: "GITHUB_TOKEN" }, enabled: true, eager: false });
    expect(config.mcp.servers.docs).toMatchObject({ url: "https://mcp.example.invalid/mcp", eager: true, enabled: false, timeout_ms: 60_000 });
    expect(config.mcp.serve.tools).toEqual(["memory_recall", "prx_chat", "@plugins"]);
  });

  test("the default serves memory and plugin tools and connects to nothing", () => {
    expect(defaultConfig().mcp).toEqual({ servers: {}, serve: { tools: MCP_SERVE_DEFAULT_TOOLS } });
    expect(MCP_SERVE_DEFAULT_TOOLS).not.toContain("shell");
    expect(MCP_SERVE_DEFAULT_TOOLS).not.toContain("file_write");
  });

  test("a server needs exactly one of command and url", () => {
    expect(parseError(`[mcp.servers.x]\ncommand = "a"\nurl = "http://127.0.0.1:1/mcp"\n`)).toContain("set either command (stdio) or url");
    expect(parseError(`[mcp.servers.x]\nenabled = true\n`)).toContain("set either command (stdio) or url");
  });

  test("stdio keys on a url server and headers on a stdio server are refused by name", () => {
    expect(parseError(`[mcp.servers.x]\nurl = "http://127.0.0.1:1/mcp"\nenv_from = { A = "B" }\n`)).toContain('"mcp.servers.x.env_from": env_from is for stdio servers');
    expect(parseError(`[mcp.servers.x]\ncommand = "a"\nheaders_from_env = { A = "B" }\n`)).toContain("headers_from_env is for url servers");
  });

  test("unknown keys, bad variable names and non-http URLs are refused with their path", () => {
    expect(parseError(`[mcp.servers.x]\ncommand = "a"\nenvironment = {}\n`)).toContain('unknown key "mcp.servers.x.environment"');
    expect(parseError(`[mcp.servers.x]\ncommand = "a"\nenv_from = { A = "not a name" }\n`)).toContain("an environment variable name");
    expect(parseError(`[mcp.servers.x]\nurl = "file:///etc/passwd"\n`)).toContain("mcp.servers.x.url");
    expect(parseError(`[mcp.serve]\ntools = ["shell;rm"]\n`)).toContain("mcp.serve.tools.0");
  });

  test(`a server name of ${MCP_SERVER_NAME_MAX} characters is accepted; one more is refused`, () => {
    const name = "s".repeat(MCP_SERVER_NAME_MAX);
    expect(Object.keys(parseConfig(`[mcp.servers.${name}]\ncommand = "a"\n`).mcp.servers)).toEqual([name]);
    expect(parseError(`[mcp.servers.${name}s]\ncommand = "a"\n`)).toContain("invalid server name");
  });

  test("server names may not hold __ or start or end with _ (the model name must say where they end)", () => {
    for (const bad of ["a__b", "_a", "a_", "a.b"]) expect(parseError(`[mcp.servers."${bad}"]\ncommand = "a"\n`)).toContain("invalid server name");
    expect(Object.keys(parseConfig(`[mcp.servers.a_b-c]\ncommand = "a"\n`).mcp.servers)).toEqual(["a_b-c"]);
  });

  test(`${MCP_MAX_SERVERS} servers are accepted; one more is refused`, () => {
    expect(Object.keys(parseConfig(servers(MCP_MAX_SERVERS)).mcp.servers)).toHaveLength(MCP_MAX_SERVERS);
    expect(parseError(servers(MCP_MAX_SERVERS + 1))).toContain(`at most ${MCP_MAX_SERVERS} are allowed`);
  });

  test(`${MCP_MAX_ARGS} arguments are accepted; one more is refused`, () => {
    const args = (n: number) => `[mcp.servers.x]\ncommand = "a"\nargs = [${Array.from({ length: n }, () => '"a"').join(", ")}]\n`;
    expect(parseConfig(args(MCP_MAX_ARGS)).mcp.servers.x!.args).toHaveLength(MCP_MAX_ARGS);
    expect(parseError(args(MCP_MAX_ARGS + 1))).toContain('"mcp.servers.x.args"');
  });

  test(`a tools or exclude entry of ${MCP_TOOL_NAME_MAX_CHARS} characters is accepted; one more is refused`, () => {
    const entry = "t".repeat(MCP_TOOL_NAME_MAX_CHARS);
    expect(parseConfig(`[mcp.servers.x]\ncommand = "a"\nexclude = ["${entry}"]\n`).mcp.servers.x!.exclude).toEqual([entry]);
    expect(parseError(`[mcp.servers.x]\ncommand = "a"\ntools = ["${entry}t"]\n`)).toContain('"mcp.servers.x.tools.0"');
  });
});
