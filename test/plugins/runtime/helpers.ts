import { openSqliteStorage } from "../../../src/storage/index.ts";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../../src/core/errors.ts";
import { nullPublisher } from "../../../src/core/events.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace, type Workspace } from "../../../src/core/workspace.ts";
import type { RuntimeServices } from "../../../src/plugins/runtime/index.ts";
import type { AdmittedPlugin, PluginInstance, PluginKind, PluginLoader } from "../../../src/plugins/types.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";

/**
 * Test fixtures for the runtime: real core-module plugins built from WAT (jco's parser) speaking the WASM engine's
 * core JSON ABI, and a small real in-thread loader for them (JSON in linear memory, result packed as ptr << 32 | len). The unit under test is the
 * runtime, not this loader; the WASM engine's own loader is exercised by its own tests and by the engine-backed
 * test in concurrency.test.ts.
 */
let parseWat: ((source: string) => Promise<Uint8Array>) | null = null;
const watCache = new Map<string, Uint8Array>();

export async function wat(source: string): Promise<Uint8Array> {
  const hit = watCache.get(source);
  if (hit) return hit;
  parseWat ??= (await import("@bytecodealliance/jco")).parse as (source: string) => Promise<Uint8Array>;
  const bytes = await parseWat(source);
  watCache.set(source, bytes);
  return bytes;
}

function watBytes(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => "\\" + b.toString(16).padStart(2, "0")).join("");
}

export interface ToolModuleOptions {
  tool: string;
  output: string;
  /** Override the whole get-spec JSON (to test invalid specs). */
  specJson?: string;
  /** Add an import nothing provides, so instantiation fails. */
  unresolvedImport?: boolean;
}

/** A core module exporting one tool through the engine's JSON ABI (src/plugins/wasm CORE-ABI: {"ok": v} replies). */
export function toolModule(options: ToolModuleOptions): Promise<Uint8Array> {
  const spec =
    `{"ok":${
      options.specJson ??
      JSON.stringify({
        name: options.tool,
        description: `test tool ${options.tool}`,
        parametersSchema: JSON.stringify({ type: "object", properties: {} }),
      })
    }}`;
  const result = JSON.stringify({ ok: { success: true, output: options.output } });
  const specLen = new TextEncoder().encode(spec).length;
  const resultLen = new TextEncoder().encode(result).length;
  return wat(`(module
  ${options.unresolvedImport ? '(import "prx_host" "missing" (func))' : ""}
  (memory (export "memory") 2)
  (data (i32.const 0) "${watBytes(spec)}")
  (data (i32.const 32768) "${watBytes(result)}")
  (func (export "alloc") (param i32) (result i32) i32.const 65536)
  (func (export "dealloc") (param i32 i32))
  (func (export "get_spec") (param i32 i32) (result i64) i64.const ${specLen})
  (func (export "execute") (param i32 i32) (result i64) i64.const ${(32768n << 32n) | BigInt(resultLen)}))`);
}

/** Real in-thread loader for the modules above; records releases to check in-flight safety. */
export class CoreTestLoader implements PluginLoader {
  readonly kinds: readonly PluginKind[] = ["wasm-module"];
  loads = 0;
  releases = 0;
  /** Set when an instance was released while one of its calls was still running (must never happen). */
  releasedWhileBusy = false;
  /** Awaited inside every invoke before the guest runs (lets tests hold calls in flight). */
  gate: (() => Promise<void>) | null = null;

  async load(plugin: AdmittedPlugin): Promise<PluginInstance> {
    // Synchronous compile: fixtures are tiny, and the async path adds ~15 ms of scheduling latency per module.
    const bytes = readFileSync(plugin.entryPath);
    let module: WebAssembly.Module;
    try {
      module = new WebAssembly.Module(bytes);
    } catch (cause) {
      throw new PrxError("PLUGIN_LOAD", `${plugin.entryPath}: compile failed: ${(cause as Error).message}`);
    }
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(module, {});
    } catch (cause) {
      throw new PrxError("PLUGIN_LOAD", `${plugin.entryPath}: instantiate failed: ${(cause as Error).message}`);
    }
    this.loads++;
    const exports = instance.exports as Record<string, unknown> & { memory: WebAssembly.Memory; alloc(n: number): number };
    let inflight = 0;
    let released = false;
    const loader = this;
    return {
      plugin,
      async invoke(_capability, fn, args) {
        if (released) throw new PrxError("PLUGIN_TRAP", `${plugin.name}: invoke after release`);
        inflight++;
        try {
          if (loader.gate) await loader.gate();
          const input = new TextEncoder().encode(JSON.stringify(args));
          const ptr = exports.alloc(input.length);
          new Uint8Array(exports.memory.buffer, ptr, input.length).set(input);
          const call = exports[fn.replaceAll("-", "_")] as (p: number, l: number) => bigint;
          const packed = call(ptr, input.length);
          const out = new Uint8Array(exports.memory.buffer, Number(packed >> 32n), Number(packed & 0xffffffffn));
          const reply = JSON.parse(new TextDecoder().decode(out)) as { ok?: unknown; err?: string };
          if (reply.err !== undefined) throw new PrxError("PLUGIN_TRAP", `${plugin.name}: ${reply.err}`);
          return reply.ok;
        } finally {
          inflight--;
        }
      },
      async release() {
        if (released) return;
        released = true;
        loader.releases++;
        if (inflight > 0) loader.releasedWhileBusy = true;
      },
    };
  }
}

export interface TestWorkspace {
  workspace: Workspace;
  services: RuntimeServices;
  cleanup(): void;
}

export function makeWorkspace(): TestWorkspace {
  const dir = tempWorkspace(undefined, { prefix: "prx-rt-" });
  const workspace = openWorkspace(dir.dir);
  const storage = openSqliteStorage(":memory:");
  const logger = createLogger("test.plugins");
  return {
    workspace,
    services: { storage, events: nullPublisher, memory: () => null, logger },
    cleanup() {
      void storage.close();
      dir.cleanup();
    },
  };
}

export interface ManifestOptions {
  name: string;
  version?: string;
  tools?: string[];
  required?: string[];
  optional?: string[];
  wasm?: string;
  extra?: string;
}

export function manifest(o: ManifestOptions): string {
  const caps = (o.tools ?? []).map((t) => `[[capabilities]]\ntype = "tool"\nname = "${t}"\n`).join("\n");
  return [
    `[plugin]\nname = "${o.name}"\nversion = "${o.version ?? "1.0.0"}"\napi_version = "0.1.0"`,
    o.wasm ? `wasm = "${o.wasm}"` : "",
    o.extra ?? "",
    caps,
    `[permissions]\nrequired = ${JSON.stringify(o.required ?? [])}\noptional = ${JSON.stringify(o.optional ?? [])}`,
  ].join("\n");
}

/** Write plugins/<dir>/plugin.toml and, when given, plugin.wasm. Returns the plugin directory. */
export function writePlugin(workspace: Workspace, dir: string, toml: string, wasm?: Uint8Array): string {
  const path = join(workspace.pluginsDir, dir);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "plugin.toml"), toml);
  if (wasm) writeFileSync(join(path, "plugin.wasm"), wasm);
  return path;
}

/** A tool plugin named `name` whose one tool `<name>_tool` answers `output`. */
export async function writeToolPlugin(workspace: Workspace, name: string, output: string, extra: Partial<ManifestOptions> = {}): Promise<string> {
  const tool = `${name.replaceAll("-", "_")}_tool`;
  return writePlugin(workspace, name, manifest({ name, tools: [tool], ...extra }), await toolModule({ tool, output }));
}

export const ctx = () => ({ sessionId: "s", workspace: "/tmp", signal: new AbortController().signal });
