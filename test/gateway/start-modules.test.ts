import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatewayStartModules, type StartFrom } from "../helpers/start-modules.ts";

setDefaultTimeout(60_000);

/**
 * What `prx gateway` loads before its first request decides its cold start and idle RSS (targets in README, Performance).
 * An idle gateway answers /health without its route table: Elysia (and TypeBox), the routes and their zod schemas
 * load with the first other request; the plugin runtime (zod, the manifest's TOML parser) with the first turn or
 * plugin request when the workspace has no plugin; the OpenAPI document, the web console's files, the OpenAI route
 * internals and the providers' wire schemas on first use. A static import of any of them from the start path (it
 * happened once, through an embeddings constant) fails here, from source and from the compiled binary, whose chunks
 * could put a lazy module beside an eager one.
 */
const LAZY = [
  /\/node_modules\/(elysia|@sinclair\/typebox|zod|smol-toml)\//,
  /\/src\/gateway\/(app|elysia|pipeline)\.ts$/,
  /\/src\/plugins\/runtime\.ts$/,
  /\/src\/gateway\/openapi\/(swagger|document)\.ts$/,
  /\/src\/gateway\/openai\/handlers\.ts$/,
  /\/src\/console\/(serve|files|bundle)\.ts$/,
  /\/providers\/openai-wire\.ts$/,
  /\/providers\/anthropic-wire\.ts$/,
  // the MCP SDK loads when an MCP server starts (test/mcp/start-modules.test.ts: with one configured)
  /\/node_modules\/@modelcontextprotocol\//,
];

const dir = mkdtempSync(join(tmpdir(), "prx-start-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(["source", "binary"] as StartFrom[])("from %s", (from) => {
  test("an idle gateway without plugins loads no route table, no plugin runtime, no zod, no API document, no console", async () => {
    writeFileSync(
      join(dir, "config.toml"),
      'default_provider = "remote"\ndefault_model = "m"\n[providers.remote]\nkind = "openai-compatible"\n' +
        'base_url = "http://127.0.0.1:9/v1"\nembedding_model = "e"\n[providers.claude]\nkind = "anthropic"\n' +
        'base_url = "http://127.0.0.1:9"\n',
    );
    // the first start validates config.toml (TOML parser, config schema) and caches it: the second is the common one
    await gatewayStartModules(dir, from);
    const loaded = await gatewayStartModules(dir, from);
    expect(loaded.some((m) => m.endsWith("/src/gateway/server.ts"))).toBe(true);
    expect(loaded.filter((m) => LAZY.some((pattern) => pattern.test(m)))).toEqual([]);
  });
});
