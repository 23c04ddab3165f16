/**
 * The MCP client over Streamable HTTP against a server built with the SDK in this process, and over the older
 * HTTP+SSE transport against the reference server's `sse` mode.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { MAX_JSON_DEPTH } from "../../src/core/json/index.ts";
import type { McpManager } from "../../src/mcp/manager.ts";
import { McpConfigSchema } from "../../src/config/mcp.ts";
import { McpManager as Manager } from "../../src/mcp/manager.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { startHttpServer, type TestHttpServer } from "./fixtures/http-server.ts";
import { EVERYTHING, toolContext, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const spaces = workspaces();
let server: TestHttpServer;
const opened: McpManager[] = [];

beforeAll(() => {
  server = startHttpServer();
});
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close()));
  await server.stop();
  spaces.cleanup();
});

function open(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const workspace = spaces.make();
  const manager = new Manager({ config: McpConfigSchema.parse({ servers: { web: config } }), workspace, env });
  opened.push(manager);
  const registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  const call = (name: string, args: unknown = {}) => registry.call(name, JSON.stringify(args), toolContext(workspace.root));
  return { manager, registry, call, handle: manager.handle("web") };
}

describe("Streamable HTTP", () => {
  test("tools are listed and called; a failing tool is a failed result", async () => {
    const { handle, registry, call } = open({ url: server.url });
    await handle.listTools();
    expect(handle.transport).toBe("streamable-http");
    expect(registry.names()).toEqual(["mcp__web__add_tool", "mcp__web__deep", "mcp__web__echo", "mcp__web__fail", "mcp__web__slow", "mcp__web__whoami"]);
    expect(registry.specs().find((s) => s.name === "mcp__web__echo")?.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
    });
    expect(await call("mcp__web__echo", { text: "over http" })).toEqual({ success: true, output: "over http", error: null });
    expect(await call("mcp__web__fail")).toEqual({ success: false, output: "", error: "http fixture failure" });
  });

  test("headers come from the environment, by name or inside a template", async () => {
    const named = open({ url: server.url, headers_from_env: { Authorization: "WEB_AUTH" } }, { WEB_AUTH: "Token abc" });
    await named.handle.listTools();
    expect((await named.call("mcp__web__whoami")).output).toBe("Token abc");
    const templated = open({ url: server.url, headers_from_env: { Authorization: "Bearer ${WEB_TOKEN}" } }, { WEB_TOKEN: "s3cret" });
    await templated.handle.listTools();
    expect((await templated.call("mcp__web__whoami")).output).toBe("Bearer s3cret");
  });

  test("list_changed over the session's stream updates the tools", async () => {
    const { handle, registry, call } = open({ url: server.url });
    await handle.listTools();
    expect((await call("mcp__web__add_tool", { name: "late" })).output).toBe("added");
    await waitFor(() => registry.names().includes("mcp__web__late"), "the changed tool list");
    expect((await call("mcp__web__late")).output).toBe("ran late");
  });

  test("a slow tool past timeout_ms fails naming the server, the tool and the setting", async () => {
    const { handle } = open({ url: server.url, timeout_ms: 200 });
    await handle.listTools();
    let error: unknown;
    await handle.call("slow", { ms: 5000 }).catch((e: unknown) => (error = e));
    expect(isPrxError(error, "MCP_TIMEOUT")).toBe(true);
    expect((error as Error).message).toBe('MCP server "web" did not answer tool "slow" within 200 ms');
    expect((await handle.call("echo", { text: "still fine" })).output).toBe("still fine");
  });

  test("a server that goes away mid-call fails that call clearly; prx reconnects once it is back", async () => {
    const own = startHttpServer();
    const port = Number(new URL(own.url).port);
    const { handle, call } = open({ url: own.url });
    await handle.listTools();
    const pending = call("mcp__web__slow", { ms: 3_000 });
    await waitFor(() => own.sessions() === 1, "the session");
    await Bun.sleep(50); // the call is on its way
    await own.stop();
    const failed = await pending;
    expect(failed.success).toBe(false);
    expect(failed.error).toContain('MCP server "web" stopped during tool "slow": it stopped: the HTTP connection failed:');
    expect(failed.error).toMatch(/prx restarts it in \d+ ms; call the tool again/);
    const back = startHttpServer(port);
    try {
      await waitFor(() => handle.state === "ready", "the reconnection");
      expect(handle.restarts).toBeGreaterThanOrEqual(1);
      expect((await call("mcp__web__echo", { text: "reconnected" })).output).toBe("reconnected");
    } finally {
      await back.stop();
    }
  });

  test(`a message nested ${MAX_JSON_DEPTH} levels is read; one level more fails the call naming the limit, and prx reconnects`, async () => {
    const { call, handle } = open({ url: server.url });
    await handle.listTools();
    expect(await call("mcp__web__deep", { depth: MAX_JSON_DEPTH })).toEqual({ success: true, output: "deep", error: null });
    const over = await call("mcp__web__deep", { depth: MAX_JSON_DEPTH + 1 });
    expect(over.success).toBe(false);
    expect(over.error).toContain(`JSON nesting deeper than ${MAX_JSON_DEPTH} levels`);
    await waitFor(async () => (await call("mcp__web__echo", { text: "back" })).success, "the reconnect after the deep message");
  });

  test("an unreachable URL fails naming the server and what to check", async () => {
    const { handle } = open({ url: "http://127.0.0.1:9/mcp", startup_timeout_ms: 5000 });
    let error: unknown;
    await handle.listTools().catch((e: unknown) => (error = e));
    expect(isPrxError(error, "MCP_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toStartWith('MCP server "web" at http://127.0.0.1:9/mcp is not reachable:');
    expect((error as { hint?: string }).hint).toContain("check [mcp.servers.web] url and headers_from_env");
  });

  test("closing ends the HTTP session", async () => {
    const { handle, manager } = open({ url: server.url });
    await handle.listTools();
    const before = server.sessions();
    await manager.close();
    await waitFor(() => server.sessions() < before, "the session to end");
    expect(server.sessions()).toBe(before - 1);
  });
});

describe("the older HTTP+SSE transport", () => {
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  afterAll(async () => {
    proc?.kill();
    await proc?.exited;
  });

  test("a server that refuses Streamable HTTP is reached over SSE at the same URL", async () => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port!;
    await probe.stop(true);
    proc = Bun.spawn([process.execPath, EVERYTHING, "sse"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
    const url = `http://127.0.0.1:${port}/sse`;
    await listening(port);
    const { handle, call } = open({ url });
    await handle.listTools();
    expect(handle.transport).toBe("sse");
    expect((await call("mcp__web__echo", { message: "over sse" })).output).toBe("Echo: over sse");
  });
});

/** Resolves once something answers HTTP on the port. */
async function listening(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}: ${(error as Error).message}`);
      await Bun.sleep(20);
    }
  }
}
