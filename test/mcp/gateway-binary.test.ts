/**
 * The MCP routes of the built gateway: /api/mcp (servers, one server, a call) and prx's own MCP server at POST /mcp,
 * behind the bearer token like every /api route; an eager server starts with the gateway and is reaped with it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { McpCallResponseSchema, McpListSchema, McpServerDetailSchema, type McpList } from "../../src/contracts/mcp.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { alive, FIXTURE } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

let fake: FakeServer;
let gateway: RunningGateway;
let token = "";
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  const servers =
    `[mcp.servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\neager = true\n` +
    `[mcp.servers.later]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\n`;
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `[reliability]\nretries = 0\n${servers}`));
  cleanups.push(ws.cleanup);
  gateway = await startGatewayBinary(ws.dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
}, 300_000);

afterAll(async () => {
  if (gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  await fake.stop();
  for (const cleanup of cleanups) cleanup();
});

const get = (path: string, auth = true) => fetch(`${gateway.url}${path}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
const post = (path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const list = async (): Promise<McpList> => McpListSchema.parse(await (await get("/api/mcp")).json());

describe("the gateway's MCP routes (binary)", () => {
  test("they need the bearer token", async () => {
    expect((await get("/api/mcp", false)).status).toBe(401);
    const mcp = await fetch(`${gateway.url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(mcp.status).toBe(401);
  });

  test("GET /api/mcp: the eager server starts with the gateway, the other waits for its first use", async () => {
    let body = await list();
    const deadline = Date.now() + 30_000;
    // "ready" comes a moment before its tool list: wait for both
    const listed = () => body.servers.find((s) => s.name === "fx")?.tools_from === "server";
    while (!listed() && Date.now() < deadline) {
      await Bun.sleep(50);
      body = await list();
    }
    const fx = body.servers.find((s) => s.name === "fx")!;
    expect(fx).toMatchObject({ state: "ready", transport: "stdio", eager: true, connected_via: "stdio", tools_from: "server" });
    expect(fx.tools.map((t) => t.name)).toContain("mcp__fx__echo");
    expect(body.servers.find((s) => s.name === "later")).toMatchObject({ state: "stopped", eager: false, pid: null });
    expect(body.serve.tools).toEqual(["memory_store", "memory_recall", "memory_forget"]);
  });

  test("GET /api/mcp/<server> and POST /api/mcp/<server>/call", async () => {
    const detail = McpServerDetailSchema.parse(await (await get("/api/mcp/fx")).json());
    expect(detail).toMatchObject({ name: "fx", resources: [], prompts: [] });
    const call = McpCallResponseSchema.parse(await (await post("/api/mcp/fx/call", { tool: "echo", arguments: { text: "via api" } })).json());
    expect(call).toEqual({ server: "fx", tool: "echo", success: true, output: "via api", error: null });
    const missing = await get("/api/mcp/nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('no MCP server named "nope"');
    expect((await post("/api/mcp/fx/call", { tool: "echo", extra: 1 })).status).toBe(400);
  });

  test("a model turn through /v1/chat/completions calls an MCP tool", async () => {
    const response = await post("/v1/chat/completions", {
      model: "fake-model",
      messages: [{ role: "user", content: 'use tool mcp__fx__echo {"text":"through the model"}' }],
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe("tool said: through the model");
  });

  test("POST /mcp is prx's MCP server over Streamable HTTP for an SDK client with the token; GET is 405", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "prx-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["memory_store", "memory_recall", "memory_forget"]);
      const stored = await client.callTool({ name: "memory_store", arguments: { key: "via-mcp", content: "stored over HTTP" } });
      expect(stored.isError).toBe(false);
      const entry = await (await get("/api/memory/entries/via-mcp")).json();
      expect(entry).toMatchObject({ entry: { key: "via-mcp", content: "stored over HTTP" } });
    } finally {
      await client.close();
    }
    const stream = await fetch(`${gateway.url}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
  });

  test("the OpenAPI document describes /api/mcp with its schema", async () => {
    const doc = (await (await get("/swagger/json")).json()) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }> }>> };
    const schema = doc.paths["/api/mcp"]!.get!.responses["200"]!.content!["application/json"]!.schema;
    expect(Object.keys(schema.properties ?? {})).toEqual(["servers", "serve"]);
    expect(doc.paths["/api/mcp/{server}/call"]?.post).toBeDefined();
    expect(doc.paths["/mcp"]?.post).toBeDefined();
  });

  test("stopping the gateway reaps its MCP servers", async () => {
    const pid = (await list()).servers.find((s) => s.name === "fx")!.pid!;
    expect(alive(pid)).toBe(true);
    gateway.proc.kill("SIGTERM");
    expect(await gateway.proc.exited).toBe(0);
    await waitFor(() => !alive(pid), "the MCP server to be gone");
  });
});
