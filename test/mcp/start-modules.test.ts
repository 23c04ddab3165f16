/**
 * What the MCP client costs a gateway that does not use it yet: with no server configured nothing of it loads but its
 * small extension module; with a server that is not eager, its manager loads with the plugins (after listening) and
 * the MCP SDK does not load at all until the server starts.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-mcp-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Start the gateway from source with this config.toml; the modules it loaded once the plugins have started. */
async function modulesLoaded(config: string): Promise<string[]> {
  writeFileSync(join(dir, "config.toml"), config);
  const preload = join(ROOT, "test", "gateway", "fixtures", "report-modules.ts");
  const proc = Bun.spawn([process.execPath, "--preload", preload, join(ROOT, "src", "cli", "main.ts"), "gateway", "--port", "0", "-w", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  expect(await proc.exited).toBe(0);
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`the gateway did not report its modules; stderr:\n${stderr}`);
  return JSON.parse(line.slice("LOADED ".length)) as string[];
}

const mcpModules = (loaded: string[]) => loaded.filter((m) => m.includes("/src/mcp/")).map((m) => m.slice(m.indexOf("/src/mcp/") + 1));
const sdk = (loaded: string[]) => loaded.filter((m) => m.includes("/node_modules/@modelcontextprotocol/"));

test("with no MCP server configured the gateway loads only the MCP extension module", async () => {
  const loaded = await modulesLoaded("");
  expect(mcpModules(loaded)).toEqual(["src/mcp/extension.ts"]);
  expect(sdk(loaded)).toEqual([]);
}, 30_000);

test("a configured MCP server that is not eager loads no MCP SDK and starts nothing", async () => {
  const loaded = await modulesLoaded('[mcp.servers.idle]\ncommand = "prx-test-never-started"\n');
  expect(mcpModules(loaded)).toContain("src/mcp/manager.ts");
  expect(mcpModules(loaded)).not.toContain("src/mcp/connection.ts");
  expect(sdk(loaded)).toEqual([]);
}, 30_000);
