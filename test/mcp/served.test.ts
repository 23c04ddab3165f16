/** What prx serves over MCP, in process: the configured list, prx_chat and its message limit, calls through the registry. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { PRX_CHAT_MAX_CHARS } from "../../src/mcp/limits.ts";
import { servedTools } from "../../src/mcp/serve/exposed.ts";
import { workspaces } from "./helpers.ts";

const spaces = workspaces();
let host: AgentHost;
const published: string[] = [];

beforeAll(async () => {
  const config = ConfigSchema.parse({ tools: { disabled: ["http_request"] } });
  host = await openAgentHost({
    workspace: spaces.make().root,
    config,
    extend: async () => ({ events: { publish: (topic) => void published.push(topic) } }),
  });
});
afterAll(async () => {
  await host.close();
  spaces.cleanup();
});

const signal = () => new AbortController().signal;

test("the served list follows [mcp.serve] tools in its order; a disabled built-in or unknown name is not served", () => {
  const tools = servedTools(host, ["prx_chat", "memory_recall", "http_request", "no_such_tool", "@plugins"]);
  expect(tools.specs().map((s) => s.name)).toEqual(["prx_chat", "memory_recall"]);
  expect(tools.specs().find((s) => s.name === "prx_chat")?.parameters).toMatchObject({ type: "object", required: ["message"] });
});

test("a served call goes through the registry and is published on channel mcp", async () => {
  const tools = servedTools(host, ["memory_store"]);
  const result = await tools.call("memory_store", { key: "k", content: "served" }, signal());
  expect(result.success).toBe(true);
  expect(host.tools.counts()["memory_store"]).toEqual({ calls: 1, errors: 0 });
  expect(published).toEqual(["prx.lifecycle.tool_call_start", "prx.lifecycle.tool_call"]);
  let error: unknown;
  await tools.call("memory_recall", {}, signal()).catch((e: unknown) => (error = e));
  expect(isPrxError(error, "TOOL_UNKNOWN")).toBe(true);
});

test(`prx_chat takes a message of ${PRX_CHAT_MAX_CHARS} characters; one more is refused`, async () => {
  const tools = servedTools(host, ["prx_chat"]);
  const fits = await tools.call("prx_chat", { message: "a".repeat(PRX_CHAT_MAX_CHARS), session: "long" }, signal());
  expect(fits.success).toBe(true);
  const over = await tools.call("prx_chat", { message: "a".repeat(PRX_CHAT_MAX_CHARS + 1) }, signal());
  expect(over.success).toBe(false);
  expect(over.error).toStartWith("invalid arguments for prx_chat: message:");
});
