import { MAX_OUTPUT_BYTES } from "../limits.ts";
import { type HostContext } from "../host/context.ts";
import { hostInterfaces } from "../host/index.ts";
import { classify } from "./component.ts";
import type { Meter } from "./meter.ts";
import { type Guest, GuestFailure, camelCase, snakeCase } from "./types.ts";
import { HostError } from "../host/errors.ts";

type CoreImports = NonNullable<Parameters<typeof WebAssembly.instantiate>[1]>;

/**
 * Core modules speak the JSON ABI of CORE-ABI.md: exports memory, alloc, dealloc and one function per WIT export
 * (snake_case) taking (ptr, len) of the JSON args array and returning i64 (ptr << 32 | len) of {"ok": v} | {"err": m}.
 * Host functions are reached through one import, prx_host.call(ptr, len) -> i64, with {"fn": "kv.get", "args": [...]}.
 */
export const CORE_HOST_MODULE = "prx_host";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

type Packed = (ptr: number, len: number) => bigint | Promise<bigint>;

/** Bytes cross the JSON ABI as UTF-8 strings. */
function toJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonValue(v)]));
  }
  return value === undefined ? null : value;
}

const BYTES_ARGS: Record<string, number[]> = { "kv.set": [1], "http-outbound.request": [3] };
const BIGINT_ARGS: Record<string, number[]> = {
  "events.unsubscribe": [0],
  "websocket.send": [0],
  "websocket.receive": [0],
  "websocket.close": [0],
};

export class CoreModuleGuest implements Guest {
  private constructor(
    private readonly instance: WebAssembly.Instance,
    private readonly memory: WebAssembly.Memory,
    private readonly exportsByName: Map<string, Packed>,
    private readonly ctx: HostContext,
    private readonly meter: Meter,
  ) {}

  /** `module` is instrumented (artifact-cache.ts): besides prx_host it imports what `meter` provides. */
  static async create(module: WebAssembly.Module, ctx: HostContext, meter: Meter): Promise<CoreModuleGuest> {
    let self: CoreModuleGuest | null = null;
    const host = hostInterfaces(ctx) as Record<string, Record<string, (...a: unknown[]) => unknown>>;
    const dispatch = async (ptr: number, len: number): Promise<bigint> => {
      const me = self!;
      let reply: unknown;
      try {
        const request = JSON.parse(me.read(ptr, len)) as { fn?: unknown; args?: unknown };
        if (typeof request.fn !== "string" || !Array.isArray(request.args))
          throw new HostError('expected {"fn": "iface.name", "args": [...]}');
        const dot = request.fn.lastIndexOf(".");
        const fn = host[request.fn.slice(0, dot)]?.[camelCase(request.fn.slice(dot + 1))];
        if (!fn) throw new HostError(`unknown host function ${request.fn}`);
        const args = request.args.map((a, i) => {
          if (BYTES_ARGS[request.fn as string]?.includes(i) && typeof a === "string") return encoder.encode(a);
          if (BIGINT_ARGS[request.fn as string]?.includes(i) && typeof a === "number") return BigInt(a);
          return a ?? undefined;
        });
        reply = { ok: toJsonValue(await fn(...args)) };
      } catch (error) {
        reply = { err: error instanceof Error ? error.message : String(error) };
      }
      return me.write(JSON.stringify(reply));
    };
    const imports = { ...meter.importsFor(module), [CORE_HOST_MODULE]: { call: new WebAssembly.Suspending(dispatch) } };
    const instance = await WebAssembly.instantiate(module, imports as unknown as CoreImports);
    const ex = instance.exports;
    if (
      !(ex.memory instanceof WebAssembly.Memory) ||
      typeof ex.alloc !== "function" ||
      typeof ex.dealloc !== "function"
    ) {
      throw new GuestFailure(
        "error",
        `plugin ${ctx.plugin.name}: a core module must export memory, alloc and dealloc (see CORE-ABI.md)`,
        false,
      );
    }
    const exportsByName = new Map<string, Packed>();
    for (const [name, value] of Object.entries(ex)) {
      if (typeof value === "function" && name !== "alloc" && name !== "dealloc") {
        exportsByName.set(name, WebAssembly.promising(value as (...a: number[]) => bigint) as Packed);
      }
    }
    self = new CoreModuleGuest(instance, ex.memory, exportsByName, ctx, meter);
    return self;
  }

  hasExport(fn: string): boolean {
    return this.exportsByName.has(snakeCase(fn));
  }

  memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  lastFuel(): number | null {
    return this.meter.lastFuel();
  }

  private read(ptr: number, len: number): string {
    const buf = this.memory.buffer;
    if (ptr < 0 || len < 0 || ptr + len > buf.byteLength)
      throw new HostError(`pointer ${ptr}+${len} is outside linear memory`);
    return decoder.decode(new Uint8Array(buf, ptr, len));
  }

  private write(text: string): bigint {
    const bytes = encoder.encode(text);
    const ptr = (this.instance.exports.alloc as (n: number) => number)(bytes.length) >>> 0;
    new Uint8Array(this.memory.buffer, ptr, bytes.length).set(bytes);
    return (BigInt(ptr) << 32n) | BigInt(bytes.length);
  }

  async call(fn: string, args: unknown[]): Promise<unknown> {
    const where = `plugin ${this.ctx.plugin.name} ${this.ctx.capability.type} ${this.ctx.capability.name} ${fn}`;
    const target = this.exportsByName.get(snakeCase(fn));
    if (!target) throw new GuestFailure("error", `${where}: the module has no export ${snakeCase(fn)}`, false);
    this.ctx.call.httpRequests = 0;
    const dealloc = this.instance.exports.dealloc as (p: number, n: number) => void;
    let text: string;
    // the call's fuel covers the guest's alloc and dealloc of its arguments and result
    this.meter.begin(where);
    try {
      const input = JSON.stringify(toJsonValue(args));
      const inPacked = this.write(input);
      const inPtr = Number(inPacked >> 32n);
      const inLen = Number(inPacked & 0xffffffffn);
      const packed = BigInt.asUintN(64, BigInt(await target(inPtr, inLen)));
      const ptr = Number(packed >> 32n);
      const len = Number(packed & 0xffffffffn);
      if (len > MAX_OUTPUT_BYTES) {
        throw new GuestFailure(
          "output",
          `${where} returned ${len} bytes, more than MAX_OUTPUT_BYTES (${MAX_OUTPUT_BYTES})`,
          false,
        );
      }
      text = this.read(ptr, len);
      dealloc(inPtr, inLen);
      dealloc(ptr, len);
    } catch (error) {
      throw classify(this.meter.end() ?? error, where, this.memoryBytes(), this.ctx.plugin.maxMemoryMb);
    }
    const stopped = this.meter.end();
    if (stopped) throw stopped;
    let reply: { ok?: unknown; err?: unknown };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      throw new GuestFailure(
        "output",
        `${where} returned invalid JSON (expected {"ok": ...} or {"err": "..."})`,
        false,
      );
    }
    if (reply && typeof reply === "object" && "err" in reply) {
      throw new GuestFailure("error", typeof reply.err === "string" ? reply.err : JSON.stringify(reply.err), false);
    }
    if (!reply || typeof reply !== "object" || !("ok" in reply)) {
      throw new GuestFailure("output", `${where} returned JSON without "ok" or "err"`, false);
    }
    return reply.ok === null ? undefined : reply.ok;
  }
}
