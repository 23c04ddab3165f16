import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What `prx gateway` loads before its first request decides its cold start and idle RSS (targets in README, Performance).
 * Elysia is the route table and loads at start; the OpenAPI document and Swagger UI, the web console's files, the
 * OpenAI route internals and the providers' zod wire schemas load on first use. A static import of any of them from
 * the start path (it happened once, through an embeddings constant) fails here.
 */
const LAZY = [
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

test("the gateway starts without loading its API document, the console, the OpenAI internals or the provider wire schemas", async () => {
  writeFileSync(
    join(dir, "config.toml"),
    'default_provider = "remote"\ndefault_model = "m"\n[providers.remote]\nkind = "openai-compatible"\n' +
      'base_url = "http://127.0.0.1:9/v1"\nembedding_model = "e"\n[providers.claude]\nkind = "anthropic"\n' +
      'base_url = "http://127.0.0.1:9"\n',
  );
  const root = join(import.meta.dir, "..", "..");
  const proc = Bun.spawn(
    [
      process.execPath,
      "--preload",
      join(import.meta.dir, "fixtures", "report-modules.ts"),
      join(root, "src", "cli", "main.ts"),
      "gateway",
      "--port",
      "0",
      "-w",
      dir,
    ],
    { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, stdout: "ignore", stderr: "pipe" },
  );
  const stderr = await new Response(proc.stderr).text();
  expect(await proc.exited).toBe(0);
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`the gateway did not report its modules; stderr:\n${stderr}`);
  const loaded = JSON.parse(line.slice("LOADED ".length)) as string[];
  expect(loaded.some((m) => m.endsWith("/src/gateway/server.ts"))).toBe(true);
  expect(loaded.some((m) => /\/node_modules\/elysia\//.test(m))).toBe(true);
  expect(loaded.filter((m) => LAZY.some((pattern) => pattern.test(m)))).toEqual([]);
}, 30_000);
