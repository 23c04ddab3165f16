/**
 * MCP tools in an agent turn: the model is offered them, calls them through the same registry and lifecycle events
 * as built-ins, and a server that cannot run never blocks a turn (a turn that calls it gets an error it can read).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { EventPublisher } from "../../src/core/events.ts";
import { mcpClientExtension } from "../../src/mcp/extension.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { fixture, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const TOKEN_VARIABLE = "PRX_TEST_MCP_FX_TOKEN";
const spaces = workspaces();
const hosts: AgentHost[] = [];
let fake: FakeServer;

beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await fake.stop();
  delete process.env[TOKEN_VARIABLE];
  spaces.cleanup();
});

async function open(root: string, servers: Record<string, Record<string, unknown>>) {
  const published: Array<{ topic: string; payload: Record<string, unknown> }> = [];
  const events: EventPublisher = { publish: (topic, payload) => void published.push({ topic, payload: payload as Record<string, unknown> }) };
  const mcp = mcpClientExtension();
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    // tools called here run without asking for approval
    autonomy: { level: "full" },
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    mcp: { servers },
  });
  const host = await openAgentHost({ workspace: root, config, extend: mcp.wrap(async () => ({ events })) });
  hosts.push(host);
  return { host, published, manager: mcp.manager()! };
}

const server = () => ({ fx: fixture([], { env_from: { TOKEN: TOKEN_VARIABLE } }) });

test("the model is offered an MCP tool, calls it, and the call is published like any tool call", async () => {
  process.env[TOKEN_VARIABLE] = "set";
  const { host, published, manager } = await open(spaces.make().root, server());
  await manager.handle("fx").listTools();
  const result = await host.runTurn({ sessionId: "s1", text: 'use tool mcp__fx__echo {"text":"from the model"}', channel: "test" });
  expect(result.text).toBe("tool said: from the model");
  expect(result.toolCalls.map((t) => [t.call.name, t.result.success])).toEqual([["mcp__fx__echo", true]]);
  const offered = fake.requests.at(-2)!.body.tools?.map((t: { function: { name: string } }) => t.function.name) ?? [];
  expect(offered).toContain("mcp__fx__echo");
  expect(offered).toContain("memory_store");
  const tools = published.filter((e) => e.topic.startsWith("prx.lifecycle.tool_call"));
  expect(tools.map((e) => [e.topic, e.payload.tool])).toEqual([
    ["prx.lifecycle.tool_call_start", "mcp__fx__echo"],
    ["prx.lifecycle.tool_call", "mcp__fx__echo"],
  ]);
  expect(host.tools.counts()["mcp__fx__echo"]).toEqual({ calls: 1, errors: 0 });
});

test("a server that cannot start blocks no turn; a turn calling it gets an error naming the server and the fix", async () => {
  const root = spaces.make().root;
  process.env[TOKEN_VARIABLE] = "set";
  const first = await open(root, server());
  await first.manager.handle("fx").listTools(); // its tools are now cached in the workspace
  await first.host.close();
  delete process.env[TOKEN_VARIABLE];

  const { host, manager } = await open(root, server());
  const plain = await host.runTurn({ sessionId: "s2", text: "hello", channel: "test" });
  expect(plain.text).toBe("echo: hello");
  expect(manager.handle("fx").state).toBe("stopped");

  const result = await host.runTurn({ sessionId: "s2", text: 'use tool mcp__fx__echo {"text":"x"}', channel: "test" });
  const failed = result.toolCalls[0]!.result;
  expect(failed.success).toBe(false);
  expect(failed.error).toContain(`tool mcp__fx__echo failed: MCP server "fx" needs ${TOKEN_VARIABLE} in prx's environment`);
  expect(failed.error).toContain(`hint: export ${TOKEN_VARIABLE}=... before starting prx`);
  expect(result.text).toStartWith("tool said: error:");
  await waitFor(() => manager.handle("fx").state === "failed", "the failed start to be recorded");
});

test("with no MCP server configured the extension adds nothing", async () => {
  const mcp = mcpClientExtension();
  const config = ConfigSchema.parse({});
  const host = await openAgentHost({ workspace: spaces.make().root, config, extend: mcp.wrap() });
  hosts.push(host);
  expect(mcp.manager()).toBeUndefined();
  expect(host.tools.names().some((n) => n.startsWith("mcp__"))).toBe(false);
});
