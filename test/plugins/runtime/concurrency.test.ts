import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/index.ts";
import { parseManifest } from "../../../src/plugins/manifest.ts";
import { isSensitivePermission } from "../../../src/plugins/permissions.ts";
import { getPluginRuntime, type PluginRuntime } from "../../../src/plugins/runtime/index.ts";
import type { ToolResult } from "../../../src/tools/types.ts";
import { CoreTestLoader, ctx, makeWorkspace, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

const CALLS = 200;
const RELOADS = 20;

let t: TestWorkspace;
let runtime: PluginRuntime | null = null;
let storage: SqliteStorage | null = null;
beforeEach(() => (t = makeWorkspace()));
afterEach(async () => {
  await runtime?.stop();
  runtime = null;
  await storage?.close();
  storage = null;
  t.cleanup();
});

/** Fire CALLS tool calls, spread over the time RELOADS sequential reloads take; returns every result. */
async function storm(rt: PluginRuntime, tool: string, args: Record<string, unknown>, beforeReload: (i: number) => Promise<void>) {
  const calls: Promise<ToolResult>[] = [];
  let fired = 0;
  const fire = () => {
    const t = rt.tools.get(tool);
    if (!t) throw new Error(`tool ${tool} vanished from the router`);
    calls.push(t.execute(args, ctx()));
    fired++;
  };
  const reloads = (async () => {
    for (let i = 0; i < RELOADS; i++) {
      await beforeReload(i);
      for (let k = 0; k < CALLS / RELOADS; k++) fire();
      await rt.reload();
    }
  })();
  await reloads;
  while (fired < CALLS) fire();
  return Promise.all(calls);
}

describe("calls during reloads", () => {
  test(`${CALLS} concurrent tool calls during ${RELOADS} reloads: zero failed calls (test loader)`, async () => {
    const loader = new CoreTestLoader();
    loader.gate = () => Bun.sleep(Math.random() < 0.5 ? 0 : 1);
    await writeToolPlugin(t.workspace, "echo", "v0");
    runtime = getPluginRuntime(t.workspace, t.services, { loaders: [loader], config: ConfigSchema.parse({}) });
    await runtime.start();
    const results = await storm(runtime, "echo_tool", {}, (i) => writeToolPlugin(t.workspace, "echo", `v${i + 1}`).then(() => {}));
    expect(results).toHaveLength(CALLS);
    expect(results.filter((r) => !r.success)).toEqual([]);
    expect(new Set(results.map((r) => r.output)).size).toBeGreaterThan(1);
    expect(runtime.current().number).toBe(RELOADS + 1);
    await runtime.settled();
    expect(loader.releases).toBe(RELOADS);
    expect(loader.releasedWhileBusy).toBe(false);
    expect(runtime.status.get("echo", "tool", "echo_tool")!.invocations).toBe(CALLS);
  });

  /**
   * Through the real WASM engine (sandbox Worker per plugin). Uses the engine's own test plugin from
   * test/fixtures/test-wasm (the first tool plugin that needs no sensitive grant) when present, else this suite's
   * WAT-built core module, which speaks the same core ABI.
   */
  test(`${CALLS} concurrent tool calls during ${RELOADS} reloads: zero failed calls (WASM engine)`, async () => {
    const engineDir = resolve(import.meta.dir, "../../fixtures/test-wasm");
    const fromEngine = existsSync(engineDir)
      ? readdirSync(engineDir)
          .sort((a, b) => Number(!a.includes("echo")) - Number(!b.includes("echo")) || (a < b ? -1 : 1))
          .map((dir) => ({ dir: join(engineDir, dir), toml: join(engineDir, dir, "plugin.toml") }))
          .filter(({ toml }) => existsSync(toml))
          .map(({ dir, toml }) => ({ dir, manifest: parseManifest(readFileSync(toml, "utf8"), toml).manifest }))
          .find(({ dir, manifest }) =>
            existsSync(join(dir, manifest.plugin.wasm)) &&
            manifest.capabilities.some((c) => c.type === "tool") &&
            !manifest.permissions.required.some(isSensitivePermission),
          )
      : undefined;
    let name = "echo";
    if (fromEngine) {
      name = fromEngine.manifest.plugin.name;
      cpSync(fromEngine.dir, join(t.workspace.pluginsDir, name), { recursive: true });
    } else {
      await writeToolPlugin(t.workspace, name, "v0");
    }
    storage = openSqliteStorage(t.workspace.dbPath);
    runtime = getPluginRuntime(t.workspace, { ...t.services, storage }, { config: ConfigSchema.parse({}) });
    const first = await runtime.start();
    expect(first.plugin(name)?.error ?? null).toBeNull();
    const tool = first.adapters.tool.find((a) => a.plugin === name)!.spec.name;
    const args = { text: "hello", message: "hello", input: "hello" };
    const baseline = await runtime.tools.get(tool)!.execute(args, ctx());
    expect(baseline.success).toBe(true);
    const results = await storm(runtime, tool, args, async () => {});
    expect(results).toHaveLength(CALLS);
    expect(results.filter((r) => r.success !== baseline.success || r.output !== baseline.output)).toEqual([]);
    expect(runtime.current().number).toBe(RELOADS + 1);
  }, 60_000);
});
