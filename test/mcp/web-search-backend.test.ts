/**
 * web_search through an MCP server's search tool ([tools.web_search] backend = "mcp"): the MCP project's reference
 * server from npm plays the search server; its echo tool answers the query it was given.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { EventPublisher } from "../../src/core/events.ts";
import { mcpClientExtension } from "../../src/mcp/extension.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { everything, toolContext, workspaces } from "./helpers.ts";

setDefaultTimeout(60_000);

const spaces = workspaces();
const hosts: AgentHost[] = [];
let fake: FakeServer;

beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await fake.stop();
  spaces.cleanup();
});

async function open(webSearch: Record<string, unknown>) {
  const root = spaces.make().root;
  const events: EventPublisher = { publish: () => {} };
  const mcp = mcpClientExtension();
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    autonomy: { level: "full" },
    providers: { fake: { base_url: fake.url } },
    mcp: { servers: { every: everything() } },
    tools: { web_search: webSearch },
  });
  const host = await openAgentHost({ workspace: root, config, extend: mcp.wrap(async () => ({ events })) });
  hosts.push(host);
  await mcp.manager()!.handle("every").listTools();
  return { host, root };
}

test("web_search asks the configured MCP tool with the query under its argument name, and answers with its text", async () => {
  const { host, root } = await open({ backend: "mcp", tool: "mcp__every__echo", query_arg: "message" });
  expect(host.tools.specs().map((spec) => spec.name)).toContain("web_search");
  const result = await host.tools.call("web_search", JSON.stringify({ query: "otters in Lisbon" }), toolContext(root));
  expect(result.success).toBe(true);
  expect(JSON.parse(result.output)).toEqual({ query: "otters in Lisbon", source: "mcp__every__echo", text: "Echo: otters in Lisbon" });
});

test("a tool that refuses the call, or one that is not there, is web_search's error naming it", async () => {
  const { host, root } = await open({ backend: "mcp", tool: "mcp__every__echo", query_arg: "wrong_name" });
  const result = await host.tools.call("web_search", JSON.stringify({ query: "otters" }), toolContext(root));
  expect(result.success).toBe(false);
  expect(result.error).toContain("web_search: mcp__every__echo failed");
  const missing = await open({ backend: "mcp", tool: "mcp__nowhere__search" });
  const unknown = await missing.host.tools.call("web_search", JSON.stringify({ query: "otters" }), toolContext(missing.root));
  expect(unknown.error).toContain('unknown tool "mcp__nowhere__search"');
});

test("the mcp backend needs its tool, named as prx names MCP tools", () => {
  const parse = (webSearch: Record<string, unknown>) => ConfigSchema.safeParse({ tools: { web_search: webSearch } });
  expect(parse({ backend: "mcp" }).error?.issues[0]?.message).toContain("mcp needs tool");
  expect(parse({ backend: "mcp", tool: "brave_web_search" }).error?.issues[0]?.message).toContain("mcp__<server>__<tool>");
  expect(parse({ backend: "mcp", tool: "mcp__brave__brave_web_search", count_arg: "count" }).success).toBe(true);
});
