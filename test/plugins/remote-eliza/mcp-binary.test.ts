/**
 * The REAL `@elizaos/plugin-mcp` 1.3.5 added with `prx plugins add` by the built binary, configured as a character
 * configures it: `[plugins.mcp.settings.mcp]` in config.toml, a TOML table naming the MCP reference server from npm
 * (@modelcontextprotocol/server-everything over stdio). A gateway turn whose model (a fake answering as OpenAI
 * documents) calls the plugin's CALL_MCP_TOOL: the plugin picks the tool and its arguments with the host's model, its
 * call reaches the server, and the server's answer is in the plugin's next model request.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { fakeProviderConfig } from "../../helpers/binary.ts";
import { EVERYTHING } from "../../mcp/helpers.ts";
import { npmBinaryWorkspace, registryUnreachable, type NpmBinaryWorkspace } from "./npm-binary.ts";

setDefaultTimeout(180_000);

const PLUGIN = "@elizaos/plugin-mcp@1.3.5";

let fake: FakeOpenAIServer;
let ws: NpmBinaryWorkspace | undefined;
let registry: string | null = null;

/** The model's answers: the turn calls CALL_MCP_TOOL; the plugin's own prompts get what its templates ask for. */
function scriptModel(): void {
  fake.script((request) => {
    const body = request.body as { messages: Array<{ role: string }>; tools?: Array<{ function: { name: string } }> };
    const text = JSON.stringify(body);
    if (text.includes("Select the Most Appropriate Tool and Server")) {
      return { type: "text", text: '{"serverName":"everything","toolName":"echo","reasoning":"the user wants an echo"}' };
    }
    if (text.includes("Generate a Strictly Valid JSON Object for Tool Execution")) {
      return { type: "text", text: '{"toolArguments":{"message":"hello from prx"}}' };
    }
    if (text.includes("You've just used the")) return { type: "text", text: "The server said hello back." };
    if (body.messages.at(-1)?.role === "tool") return { type: "text", text: "done" };
    const tool = body.tools?.find((t) => t.function.name.includes("CALL_MCP_TOOL"));
    if (tool) return { type: "tool_calls", calls: [{ name: tool.function.name, arguments: { text: "echo hello from prx" } }] };
    return undefined;
  });
}

beforeAll(async () => {
  registry = await registryUnreachable("@elizaos/plugin-mcp");
  fake = startFakeOpenAI();
  scriptModel();
  const settings =
    `[plugins.mcp.settings.mcp.servers.everything]\ntype = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\n` +
    `args = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`;
  ws = await npmBinaryWorkspace(fakeProviderConfig(fake.url, settings), "prx-eliza-mcp-bin-", "error");
}, 120_000);

afterAll(async () => {
  await ws?.stop();
  await fake?.stop();
});

describe(`${PLUGIN} added with the binary, with a table setting`, () => {
  test("a gateway turn's CALL_MCP_TOOL call reaches server-everything, and its answer reaches the model", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const added = await ws!.add(PLUGIN);
    expect(added.stdout).toContain("CALL_MCP_TOOL");
    const echoed = () => fake.chatRequests().some((r) => JSON.stringify(r.body).includes("Echo: hello from prx"));
    // the service connects to the server as it starts; until its tools are listed the action's validate declines
    for (let attempt = 0; attempt < 50 && !echoed(); attempt++) {
      if (attempt > 0) await Bun.sleep(200);
      const asked = await ws!.chat("fake-model", "echo hello from prx");
      expect(asked.status, await asked.clone().text()).toBe(200);
    }
    expect(echoed()).toBe(true);
    const toolResult = fake.chatRequests().map((r) => JSON.stringify(r.body)).find((b) => b.includes("Successfully called tool: everything/echo"));
    expect(toolResult).toBeDefined();
  });
});
