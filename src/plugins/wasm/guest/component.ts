import { WASM_PAGE_BYTES } from "../limits.ts";
import type { HostContext } from "../host/context.ts";
import { checkOutputSize } from "./output.ts";
import { exportsInterfaceName, exportsInterfaceNames } from "../contract-names.ts";
import type { Meter } from "./meter.ts";
import { type Guest, GuestFailure, camelCase } from "./types.ts";

type CoreImports = NonNullable<Parameters<typeof WebAssembly.instantiate>[1]>;

type Instantiate = (
  getCoreModule: (name: string) => Promise<WebAssembly.Module>,
  imports: Record<string, unknown>,
  instantiateCore: (module: WebAssembly.Module, imports?: CoreImports) => Promise<WebAssembly.Instance>,
) => Promise<Record<string, unknown>>;

/**
 * The components' JS a sandbox Worker has evaluated, by the SHA-256 of its text, for the Worker's life (an evaluated
 * module cannot be unloaded; the pool retires a Worker after MAX_ARTIFACTS_PER_WORKER scripts). jco's JS takes the
 * core modules as arguments, so artifacts whose text is the same (a rebuild whose core modules alone changed) share
 * one evaluation.
 */
export class EvaluatedScripts {
  private readonly byHash = new Map<string, Promise<Instantiate>>();

  /** Scripts evaluated (or being evaluated). */
  get size(): number {
    return this.byHash.size;
  }

  instantiateFunction(hash: string, js: string): Promise<Instantiate> {
    let evaluated = this.byHash.get(hash);
    if (!evaluated) {
      evaluated = (async () => {
        const url = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
        try {
          const mod = (await import(url)) as { instantiate: Instantiate };
          return mod.instantiate;
        } finally {
          URL.revokeObjectURL(url);
        }
      })();
      this.byHash.set(hash, evaluated);
    }
    return evaluated;
  }
}

/**
 * A transpiled component inside one sandbox: jco's JS (evaluated once per script, reused on re-instantiation) and
 * its core modules, already instrumented, compiled and memory-capped by the main thread (artifact-cache.ts).
 */
export class ComponentArtifact {
  constructor(
    private js: string,
    private modules: Readonly<Record<string, WebAssembly.Module>>,
    private readonly plugin: string,
    /** The JS text's SHA-256. */
    private readonly script: string,
    private readonly scripts: EvaluatedScripts,
  ) {}

  /** The JS text and compiled modules again, from a new tenant's init (the same content under the same key). */
  provide(js: string, modules: Readonly<Record<string, WebAssembly.Module>>): void {
    this.js = js;
    this.modules = modules;
  }

  instantiateFunction(): Promise<Instantiate> {
    return this.scripts.instantiateFunction(this.script, this.js);
  }

  coreModule(name: string): Promise<WebAssembly.Module> {
    const mod = this.modules[name];
    if (!mod) return Promise.reject(new Error(`plugin ${this.plugin}: transpiled component has no core module ${name}`));
    return Promise.resolve(mod);
  }
}

export class ComponentGuest implements Guest {
  private constructor(
    private readonly exportsObj: Record<string, unknown>,
    private readonly memories: WebAssembly.Memory[],
    private readonly ctx: HostContext,
    private readonly meter: Meter,
  ) {}

  /** Every core module jco instantiates gets the meter's imports: they share the flag and one fuel global. */
  static async create(
    artifact: ComponentArtifact,
    ctx: HostContext,
    imports: Record<string, unknown>,
    meter: Meter,
  ): Promise<ComponentGuest> {
    const instantiate = await artifact.instantiateFunction();
    const memories: WebAssembly.Memory[] = [];
    const instantiateCore = async (module: WebAssembly.Module, coreImports?: CoreImports) => {
      const instance = await WebAssembly.instantiate(module, { ...coreImports, ...meter.importsFor(module) } as CoreImports);
      for (const value of Object.values(instance.exports)) {
        if (value instanceof WebAssembly.Memory && !memories.includes(value)) memories.push(value);
      }
      return instance;
    };
    const exportsObj = await instantiate((name) => artifact.coreModule(name), imports, instantiateCore);
    return new ComponentGuest(exportsObj, memories, ctx, meter);
  }

  memoryBytes(): number {
    let total = 0;
    for (const m of this.memories) total += m.buffer.byteLength;
    return total;
  }

  lastFuel(): number | null {
    return this.meter.lastFuel();
  }

  /** The capability's export interface (`prx:plugin/tool-exports@0.1.0`, or unversioned): its functions only. */
  private lookup(fn: string): ((...args: unknown[]) => unknown) | null {
    const type = this.ctx.capability.type;
    const [versioned, unversioned] = exportsInterfaceNames(type);
    const iface = this.exportsObj[versioned] ?? this.exportsObj[unversioned];
    if (!iface || typeof iface !== "object") return null;
    const target = (iface as Record<string, unknown>)[camelCase(fn)];
    return typeof target === "function" ? (target as (...args: unknown[]) => unknown).bind(iface) : null;
  }

  /** Each function's bound export and the name errors give it, looked up once per instance (every call asks). */
  private readonly resolved = new Map<string, { target: ((...args: unknown[]) => unknown) | null; where: string }>();

  async call(fn: string, args: unknown[]): Promise<unknown> {
    let found = this.resolved.get(fn);
    if (!found) {
      const where = `plugin ${this.ctx.plugin.name} ${this.ctx.capability.type} ${this.ctx.capability.name} ${fn}`;
      this.resolved.set(fn, (found = { target: this.lookup(fn), where }));
    }
    const { target, where } = found;
    if (!target) {
      const iface = exportsInterfaceName(this.ctx.capability.type);
      throw new GuestFailure("error", `${where}: the component has no ${fn} in its export ${iface}`, false);
    }
    this.ctx.call.httpRequests = 0;
    let value: unknown;
    this.meter.begin(where);
    try {
      value = await target(...args);
    } catch (error) {
      throw classify(this.meter.end() ?? error, where, this.memoryBytes(), this.ctx.plugin.maxMemoryMb);
    }
    const stopped = this.meter.end();
    if (stopped) throw stopped;
    checkOutputSize(value, where);
    return value;
  }
}

/** jco's ComponentError (a guest `err(E)`) is an error result; everything else is a trap that poisons the instance. */
export function classify(error: unknown, where: string, memoryBytes: number, maxMemoryMb: number): GuestFailure {
  if (error instanceof GuestFailure) return error;
  if (
    error &&
    typeof error === "object" &&
    "payload" in error &&
    (error as object).constructor?.name === "ComponentError"
  ) {
    const payload = (error as { payload: unknown }).payload;
    return new GuestFailure("error", typeof payload === "string" ? payload : JSON.stringify(payload), false);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (memoryBytes + WASM_PAGE_BYTES * 16 > maxMemoryMb * 1024 * 1024) {
    return new GuestFailure(
      "memory",
      `${where} hit its memory limit (max_memory_mb = ${maxMemoryMb}): ${message}`,
      true,
    );
  }
  return new GuestFailure("trap", `${where} trapped: ${message}`, true);
}
