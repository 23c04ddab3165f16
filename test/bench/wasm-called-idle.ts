/**
 * What WASM plugins that were called once cost the host after their guests stopped for being idle: N distinct
 * kit-built (QuickJS) middleware components (pii-redact, each made distinct content by a custom section, as N
 * different plugins are), each opened as the gateway opens it (openWasmPlugin, declarations cached), called once,
 * then stopped by the idle stop on an injected clock. RSS of this process is printed as JSON: loaded (nothing
 * called), every guest running, one still running while the others stopped (its Worker lives on), and every guest
 * stopped. `bun test/bench/wasm-called-idle.ts [N]` (default 30).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AdmittedPlugin, PluginInstance } from "../../src/plugins/types.ts";
import { openWasmPlugin } from "../../src/plugins/wasm/loader.ts";
import { SANDBOX_GC_AFTER_STOP_MS, WASM_IDLE_STOP_MS } from "../../src/plugins/wasm/limits.ts";
import { ensureExamplesBuilt } from "../plugins/kit/examples-build.ts";
import { fakeTimers } from "../helpers/fake-timers.ts";
import { makeHost } from "../plugins/wasm/helpers.ts";

const n = Number(process.argv[2] ?? 30);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_LOG: "error" };
const source = join((await ensureExamplesBuilt(env)).dir, "pii-redact");
const t = makeHost();
const wasm = readFileSync(join(source, "plugin.wasm"));
const capability = { type: "middleware" as const, name: "pii-redact" };
const envelope = JSON.stringify({ text: "mail a@b.example", channel: "bench", user_id: null, session_id: "s", metadata: {} });

/** The kit example under its own name, its component made distinct by a custom section `idle<i>`. */
function distinct(i: number): AdmittedPlugin {
  const dir = join(t.root, "plugins", `pii-${i}`);
  mkdirSync(dir, { recursive: true });
  cpSync(source, dir, { recursive: true });
  const tag = new TextEncoder().encode(`idle${i}`);
  writeFileSync(join(dir, "plugin.wasm"), Buffer.concat([wasm, new Uint8Array([0, tag.length + 2, 1, 0x78, ...tag])]));
  return {
    name: `pii-${i}`,
    version: "0.1.0",
    kind: "wasm-component",
    dir,
    entryPath: join(dir, "plugin.wasm"),
    capabilities: [capability],
    // a loaded machine can hold a first QuickJS call past the example's 500 ms: not what is measured here
    resources: { maxMemoryMb: 32, maxExecutionTimeMs: 30_000, maxHttpRequestsPerCall: 1, maxKvStorageMb: 1, maxFuel: null },
    granted: new Set(["log", "config", "kv"]),
    config: { mask: "email,phone,card", block_secrets: "true", block_reason: "blocked" },
    httpAllowlist: [],
  };
}

const clock = fakeTimers();

async function rssMb(): Promise<number> {
  // the Workers collect their heaps SANDBOX_GC_AFTER_STOP_MS after a stop
  await Bun.sleep(SANDBOX_GC_AFTER_STOP_MS * 5);
  Bun.gc(true);
  return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
}

const plugins = Array.from({ length: n }, (_, i) => distinct(i + 1));
// a first open of each starts its guest and caches its declarations (a first start); released, as at shutdown
for (const p of plugins) await (await openWasmPlugin(p, t.host)).release();
const before = await rssMb();
// the first keeps running (idle stop 0): its Worker lives on with what the others left in it
const instances: PluginInstance[] = [];
for (const [i, p] of plugins.entries()) instances.push(await openWasmPlugin(p, t.host, i === 0 ? { idleStopMs: 0 } : { timers: clock.timers }));
const loaded = await rssMb();
for (const instance of instances) await instance.invoke(capability, "process", ["inbound", envelope]);
const running = await rssMb();
clock.advance(WASM_IDLE_STOP_MS);
const oneRunning = await rssMb();
await instances[0]!.release();
const noneRunning = await rssMb();
console.log(JSON.stringify({ n, before, loaded, running, oneRunning, noneRunning }));
await Promise.all(instances.map((i) => i.release()));
t.close();
process.exit(0);
