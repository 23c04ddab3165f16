/**
 * MAX_ARTIFACTS_PER_WORKER: a sandbox Worker that has evaluated that many components' scripts takes no new sandbox
 * (an evaluated module cannot be unloaded). Generations of one plugin go to the Worker of the one before them
 * (pool.ts), so each build of `prx plugins dev` lands in the same Worker until it is retired.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { getLogLevel } from "../../../src/core/logger.ts";
import { prepareComponent, type ArtifactUse, type PreparedComponent } from "../../../src/plugins/wasm/artifact-cache.ts";
import { pluginInfo } from "../../../src/plugins/wasm/host/context.ts";
import { WasmPluginInstance } from "../../../src/plugins/wasm/instance.ts";
import { MAX_ARTIFACTS_PER_WORKER } from "../../../src/plugins/wasm/limits.ts";
import { SandboxInitSchema } from "../../../src/plugins/wasm/protocol.ts";
import { Sandbox, sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import { waitFor } from "../../helpers/wait.ts";
import { type TestHost, admitted, makeHost, removeDir } from "./helpers.ts";

let t: TestHost;
let echo: ArtifactUse<PreparedComponent>;
const plugin = admitted("echo-tool", { name: "rebuilt" });
const echoCap = { type: "tool" as const, name: "echo_upper" };

beforeAll(async () => {
  t = makeHost();
  echo = await prepareComponent(plugin.name, readFileSync(plugin.entryPath), t.host.workspace.cacheDir, plugin.resources.maxMemoryMb, "interrupt", "local");
});
afterAll(() => {
  echo.done();
  t.close();
  removeDir(t.root);
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The echo-tool component as build `n` of the plugin: the same core modules, JS text of its own (another script). */
function build(n: number): WasmPluginInstance {
  const { prepared } = echo;
  const js = `${prepared.js}\n// build ${n}\n`;
  const init = SandboxInitSchema.parse({
    type: "init",
    plugin: pluginInfo(plugin, plugin.resources.maxMemoryMb),
    component: { key: sha256(`${prepared.key}\0${n}`), js, script: sha256(js), imports: prepared.meta.interfaces.imports, modules: prepared.modules },
    module: null,
    logLevel: getLogLevel(),
    dbPath: t.host.storage.path,
    kv: "local",
  });
  return new WasmPluginInstance(plugin, new Sandbox(plugin, t.host, init));
}

test(`a Worker takes builds of a plugin up to MAX_ARTIFACTS_PER_WORKER (${MAX_ARTIFACTS_PER_WORKER}) scripts; the next goes to a fresh Worker`, async () => {
  expect(sandboxWorkerPool.stats().tenants).toBe(0);
  const spawned = sandboxWorkerPool.stats().spawned;
  const builds: WasmPluginInstance[] = [];
  try {
    for (let n = 1; n <= MAX_ARTIFACTS_PER_WORKER; n++) {
      const instance = build(n);
      builds.push(instance);
      await instance.sandbox.start();
    }
    // at the limit: every build in the first Worker
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 1, tenants: MAX_ARTIFACTS_PER_WORKER, spawned: spawned + 1 });
    expect(await builds.at(-1)!.invoke(echoCap, "execute", ["last"])).toMatchObject({ output: "LAST" });
    // one past: that Worker is retired, the next build starts another
    const past = build(MAX_ARTIFACTS_PER_WORKER + 1);
    builds.push(past);
    await past.sandbox.start();
    expect(sandboxWorkerPool.stats()).toMatchObject({ workers: 2, tenants: MAX_ARTIFACTS_PER_WORKER + 1, spawned: spawned + 2 });
    expect(await past.invoke(echoCap, "execute", ["past"])).toMatchObject({ output: "PAST" });
    // the retired Worker ends with its last build; the fresh one keeps its own
    await Promise.all(builds.slice(0, -1).map((instance) => instance.release()));
    await waitFor(() => sandboxWorkerPool.stats().workers === 1, "the retired Worker to end");
    expect(await past.invoke(echoCap, "execute", ["alone"])).toMatchObject({ output: "ALONE" });
  } finally {
    await Promise.all(builds.map((instance) => instance.release()));
  }
}, 120_000);
