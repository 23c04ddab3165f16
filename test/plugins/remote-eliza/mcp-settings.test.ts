/**
 * The REAL `@elizaos/plugin-mcp` from npm, configured as a character configures it in elizaOS: one structured setting
 * (`[plugins.mcp.settings.mcp]`, a TOML table) that reaches runtime.getSetting("mcp") as an object, naming the MCP
 * reference server from npm (@modelcontextprotocol/server-everything over stdio). The plugin's CALL_MCP_TOOL action,
 * called as a tool, picks the tool and its arguments with the host's model (a fake answering as OpenAI documents) and
 * its call reaches the server: the server's answer is in the plugin's next model request.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { EVERYTHING } from "../../mcp/helpers.ts";
import { fakeConfig, openHost } from "./helpers.ts";
import { CORE_VERSION, installFromNpm, npmPluginWorkspace, type StarterInstall } from "./npm-starter.ts";

setDefaultTimeout(120_000);

const PLUGIN_VERSION = "1.3.5";
const install: StarterInstall = installFromNpm([`@elizaos/plugin-mcp@${PLUGIN_VERSION}`, `@elizaos/core@${CORE_VERSION}`]);
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-mcp tests: ${install.skip}`);

let fake: FakeOpenAIServer;
const cleanups: Array<() => void> = [];
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(async () => {
  await fake?.stop();
  for (const cleanup of cleanups) cleanup();
});

function workspace(nodeModules: string, transport: "worker" | "process"): string {
  const settings =
    `[plugins.mcp.settings.mcp.servers.everything]\ntype = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\n` +
    `args = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`;
  const config = fakeConfig(fake.url, settings);
  return npmPluginWorkspace(nodeModules, { name: "mcp", pkg: "@elizaos/plugin-mcp", version: PLUGIN_VERSION, transport, config }, cleanups);
}

describe(`@elizaos/plugin-mcp ${PLUGIN_VERSION} from npm with a table setting`, () => {
  for (const transport of ["worker", "process"] as const) {
    test.skipIf("skip" in install)(`${transport}: getSetting("mcp") is the table; CALL_MCP_TOOL's call reaches server-everything`, async () => {
      if ("skip" in install) throw new Error(install.skip);
      const { host } = await openHost(workspace(install.nodeModules, transport));
      try {
        await host.loadExtensions();
        expect(host.tools.names()).toContain("CALL_MCP_TOOL");
        const context = { sessionId: `mcp-${transport}`, workspace: "/nonexistent", signal: new AbortController().signal };
        // the service connects to the server as it starts; validate declines until the server's tools are listed
        let declined = 0;
        for (;;) {
          fake.enqueue({ type: "text", text: '{"serverName":"everything","toolName":"echo","reasoning":"the user wants an echo"}' });
          fake.enqueue({ type: "text", text: '{"toolArguments":{"message":"hello from prx"}}' });
          fake.enqueue({ type: "text", text: "The server said hello back." });
          const result = await host.tools.call("CALL_MCP_TOOL", JSON.stringify({ text: "echo hello from prx" }), context);
          if (result.error?.includes("validate returned false") && ++declined < 50) {
            fake.reset();
            await Bun.sleep(200);
            continue;
          }
          expect(result.error ?? null).toBeNull();
          expect(result.output).toContain("Successfully called tool: everything/echo");
          break;
        }
        const prompts = fake.chatRequests().map((request) => JSON.stringify(request.body));
        expect(prompts.some((prompt) => prompt.includes("Echo: hello from prx"))).toBe(true);
      } finally {
        await host.close();
      }
    });
  }
});
