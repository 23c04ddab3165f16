/**
 * `prx mcp serve` through the built binary, driven by the MCP SDK's own client over stdio: what it exposes by
 * default and when configured, calls into memory, plugins and the agent, and a stdout that carries nothing but the
 * protocol.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import { BINARY, ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { ROOT } from "./helpers.ts";

setDefaultTimeout(60_000);

const ECHO_PLUGIN = join(ROOT, "test", "fixtures", "test-wasm", "echo-tool");
const cleanups: Array<() => void> = [];
const clients: Client[] = [];

beforeAll(() => ensureBinary(), 300_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const cleanup of cleanups) cleanup();
});

function workspace(config = ""): string {
  const ws = tempWorkspace(config);
  cleanups.push(ws.cleanup);
  mkdirSync(join(ws.dir, "plugins"), { recursive: true });
  cpSync(ECHO_PLUGIN, join(ws.dir, "plugins", "echo-tool"), { recursive: true });
  return ws.dir;
}

async function connect(dir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ["mcp", "serve", "-w", dir],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    stderr: "ignore",
  });
  const client = new Client({ name: "prx-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");

describe("prx mcp serve (binary)", () => {
  test("by default it exposes the memory tools and plugin tools only, with their schemas", async () => {
    const client = await connect(workspace());
    expect(client.getServerVersion()?.name).toBe("prx");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["memory_store", "memory_recall", "memory_forget", "echo_upper"]);
    const store = tools.find((t) => t.name === "memory_store")!;
    expect(store.inputSchema).toMatchObject({ type: "object", properties: { key: { type: "string" }, content: { type: "string" } } });
    expect(store.description?.length).toBeGreaterThan(0);
  });

  test("calls store and recall memories in the workspace and reach plugin tools", async () => {
    const dir = workspace();
    const client = await connect(dir);
    const stored = await client.callTool({ name: "memory_store", arguments: { key: "editor", content: "The user edits code in Helix" } });
    expect(stored.isError).toBe(false);
    const recalled = await client.callTool({ name: "memory_recall", arguments: { query: "which editor does the user use" } });
    expect(textOf(recalled)).toContain("The user edits code in Helix");
    expect(textOf(await client.callTool({ name: "echo_upper", arguments: { text: "quiet" } }))).toContain("QUIET");
    const shown = await runPrx(["memory", "show", "editor", "-w", dir]);
    expect(shown.stdout).toContain("The user edits code in Helix");
  });

  test("a tool that is not exposed is a protocol error naming it and the setting", async () => {
    const client = await connect(workspace());
    for (const name of ["shell", "file_write", "wasm_plugins_manage", "prx_chat"]) {
      const error = await client.callTool({ name, arguments: {} }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(error).toBe(`MCP error -32602: prx does not serve a tool named "${name}"\n  hint: tools/list shows what is served; [mcp.serve] tools in config.toml chooses it`);
    }
  });

  test("[mcp.serve] tools chooses what is served; prx_chat runs one agent turn in a named session", async () => {
    const dir = workspace('[mcp.serve]\ntools = ["prx_chat", "memory_recall"]\n');
    const client = await connect(dir);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["prx_chat", "memory_recall"]);
    const reply = await client.callTool({ name: "prx_chat", arguments: { message: "remember that the boat is blue", session: "desk-1" } });
    expect(reply.isError).toBe(false);
    expect(textOf(reply).length).toBeGreaterThan(0);
    const bad = await client.callTool({ name: "prx_chat", arguments: { message: "hi", session: "no spaces allowed" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("invalid session id");
    const session = await runPrx(["sessions", "show", "desk-1", "-w", dir]);
    expect(session.stdout).toContain("remember that the boat is blue");
  });

  test("stdout carries only JSON-RPC; logs (debug on) go to stderr", async () => {
    const dir = workspace();
    const proc = Bun.spawn([BINARY, "mcp", "serve", "-w", dir], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PRX_LOG: "debug" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const send = (message: unknown) => proc.stdin.write(JSON.stringify(message) + "\n");
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo_upper", arguments: { text: "x" } } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "memory_recall", arguments: { query: "anything" } } });
    await proc.stdin.flush();
    // read until every answer is in (they may come in any order: the plugin call is the slowest), then close stdin
    // (the server exits; an answer still being prepared then would be lost) and read to the end
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let ended = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!ended && [1, 2, 3, 4].every((id) => text.includes(`"id":${id}}`) || text.includes(`"id":${id},`))) {
        ended = true;
        await proc.stdin.end();
      }
    }
    const stderr = await new Response(proc.stderr).text();
    expect(await proc.exited).toBe(0);
    const all = text.split("\n").filter((l) => l.length > 0);
    expect(all.length).toBe(4);
    for (const line of all) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    // the plugin logged while serving: its line went to stderr
    expect(stderr).toContain("echo_upper called");
  });

  test("a client that sends its last call and closes stdin at once still gets the answer", async () => {
    const fake = await startFakeOpenAI({ latencyMs: 400 });
    try {
      const dir = workspace(
        `default_provider = "fake"\ndefault_model = "m"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\n` +
          '[mcp.serve]\ntools = ["prx_chat"]\n',
      );
      const proc = Bun.spawn([BINARY, "mcp", "serve", "-w", dir], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const lines = [
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "prx_chat", arguments: { message: "slow one" } } },
      ];
      proc.stdin.write(lines.map((l) => JSON.stringify(l) + "\n").join(""));
      await proc.stdin.end();
      const text = await new Response(proc.stdout).text();
      expect(await proc.exited).toBe(0);
      const answers = text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
      expect(answers.map((a) => a.id)).toEqual([1, 2]);
      expect(answers[1].result.isError).not.toBe(true);
    } finally {
      await fake.stop();
    }
  });
  test(`a message nested deeper than ${MAX_JSON_DEPTH} levels is answered with an error naming the limit; serving goes on`, async () => {
    const dir = workspace();
    const proc = Bun.spawn([BINARY, "mcp", "serve", "-w", dir], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };
    const call = (id: number, text: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo_upper","arguments":{"text":"${text}","extra":`;
    // the whole line at the limit: message, params and arguments objects, then arrays
    const atLimit = call(3, "at") + "[".repeat(MAX_JSON_DEPTH - 3) + "]".repeat(MAX_JSON_DEPTH - 3) + "}}}";
    const attack = call(2, "deep") + "[".repeat(100_000) + "]".repeat(100_000) + "}}}";
    proc.stdin.write([JSON.stringify(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', attack, atLimit].join("\n") + "\n");
    await proc.stdin.flush();
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"id":3')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await proc.stdin.end();
    const answers = text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
    const refused = answers.find((a) => a.id === null);
    expect(refused.error.message).toContain(`JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    expect(answers.some((a) => a.id === 2)).toBe(false);
    const echoed = answers.find((a) => a.id === 3);
    expect(echoed.result.content[0].text).toContain("AT");
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stderr).text()).toContain("refused a message");
  });
});
