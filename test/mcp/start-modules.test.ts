/**
 * What the MCP client costs a gateway that does not use it yet: with no server configured nothing of it loads but its
 * small extension module; with a server that is not eager (and no plugin), its manager loads with the plugin runtime
 * on first use (a turn, /api/mcp), and the MCP SDK only when the server starts.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatewayStartModules, type StartFrom } from "../helpers/start-modules.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-mcp-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Start the gateway with this config.toml; the modules it loaded once the plugins have started. */
async function modulesLoaded(config: string, from: StartFrom): Promise<string[]> {
  writeFileSync(join(dir, "config.toml"), config);
  return gatewayStartModules(dir, from);
}

const mcpModules = (loaded: string[]) => loaded.filter((m) => m.includes("/src/mcp/")).map((m) => m.slice(m.indexOf("/src/mcp/") + 1));
const sdk = (loaded: string[]) => loaded.filter((m) => m.includes("/node_modules/@modelcontextprotocol/"));

setDefaultTimeout(60_000);

describe.each(["source", "binary"] as StartFrom[])("from %s", (from) => {
  test("with no MCP server configured the gateway loads only the MCP extension module", async () => {
    const loaded = await modulesLoaded("", from);
    expect(mcpModules(loaded)).toEqual(["src/mcp/extension.ts"]);
    expect(sdk(loaded)).toEqual([]);
  });

  test("a configured MCP server that is not eager loads no MCP SDK and starts nothing", async () => {
    const loaded = await modulesLoaded('[mcp.servers.idle]\ncommand = "prx-test-never-started"\n', from);
    expect(mcpModules(loaded)).toEqual(["src/mcp/extension.ts"]);
    expect(sdk(loaded)).toEqual([]);
  });
});
