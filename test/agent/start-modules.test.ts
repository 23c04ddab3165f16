import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentTurnModules, type StartFrom } from "../helpers/start-modules.ts";

setDefaultTimeout(60_000);

/**
 * What a one-shot `prx agent -m` loads decides how long it takes (README, Performance: a turn within 3x a compiled
 * hello). With the offline provider and no plugins, a warm start (config.toml validated and cached by the first one)
 * loads no zod and no TOML parser: every wire schema is built on first parse, the built-in tools' JSON Schemas are
 * generated ahead of time, and nothing of a turn without plugins parses. Nor does it load the plugin runtime, the
 * HTTP providers' wire schemas or the MCP client. A static import of any of them from this path fails here, from
 * source and from the compiled binary (whose chunks could put a lazy module beside an eager one).
 */
const LAZY = [
  /\/node_modules\/zod\//,
  /\/node_modules\/smol-toml\//,
  /\/src\/config\/(schema|loader|mcp)\.ts$/,
  /\/src\/plugins\//,
  /\/src\/providers\/(openai|anthropic)-wire\.ts$/,
  /\/src\/mcp\/(manager|connection)\.ts$/,
  /\/node_modules\/@modelcontextprotocol\//,
];

const dir = mkdtempSync(join(tmpdir(), "prx-agent-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(["source", "binary"] as StartFrom[])("from %s", (from) => {
  test("an offline turn without plugins loads no zod, no TOML parser and no plugin runtime", async () => {
    writeFileSync(join(dir, "config.toml"), 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n');
    const first = await agentTurnModules(dir, from);
    // the first start validates config.toml (zod) and caches the result
    expect(first.some((m) => /\/node_modules\/zod\//.test(m))).toBe(true);
    const loaded = await agentTurnModules(dir, from);
    expect(loaded.some((m) => m.endsWith("/src/agent/turn.ts"))).toBe(true);
    expect(loaded.filter((m) => LAZY.some((pattern) => pattern.test(m)))).toEqual([]);
  });
});
