/**
 * Entry of one plugin's sandbox Worker: holds one instance per capability, runs calls the main thread sends
 * (one at a time per instance), re-instantiates poisoned instances, and forwards logs, events and RPCs.
 */
import { decodeCall, encodeResult } from "./call-codec.ts";
import type { FromWorker, RpcMethod, SandboxStart, ToWorker } from "../protocol.ts";
import type { HostContext } from "../host/context.ts";
import { KvStore } from "../host/kv.ts";
import { RemoteKv } from "../host/kv-remote.ts";
import { componentImports } from "../host/index.ts";
import { ComponentArtifact, ComponentGuest } from "../guest/component.ts";
import { CoreModuleGuest } from "../guest/core-module.ts";
import { Meter } from "../guest/meter.ts";
import { type Guest, GuestFailure } from "../guest/types.ts";
import type { GuestKv } from "../host/types.ts";
import { WebSocketTable } from "../host/socket-table.ts";

declare const self: Worker;

let init: SandboxStart | null = null;
/** Raised by the main thread before it terminates this Worker: instrumented guests trap at their next check. */
let interrupt: WebAssembly.Memory | null = null;
let kv: GuestKv | null = null;
const sockets = new WebSocketTable();
let artifact: ComponentArtifact | null = null;
let coreModule: WebAssembly.Module | null = null;
let componentImportNames: string[] = [];
const guests: (Guest | null)[] = [];
const contexts: HostContext[] = [];
let nextRpc = 1;
const pendingRpc = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function send(message: FromWorker): void {
  self.postMessage(message);
}

const FUEL_HINT = "raise [resources] max_fuel in plugin.toml, or make the call do less work";

function serialize(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof GuestFailure) {
    const code = {
      error: "PLUGIN_ERROR",
      trap: "PLUGIN_TRAP",
      timeout: "PLUGIN_TIMEOUT",
      fuel: "PLUGIN_FUEL",
      output: "PLUGIN_OUTPUT",
      memory: "LIMIT_EXCEEDED",
    }[error.kind];
    return error.kind === "fuel" ? { code, message: error.message, hint: FUEL_HINT } : { code, message: error.message };
  }
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e?.code === "string" ? e.code : "PLUGIN_LOAD",
    message: typeof e?.message === "string" ? e.message : String(error),
  };
}

const LEVEL_RANK = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, silent: 5 } as const;

function contextFor(cap: number): HostContext {
  const plugin = init!.plugin;
  const threshold = LEVEL_RANK[init!.logLevel];
  const capability = plugin.capabilities[cap]!;
  return {
    plugin,
    granted: new Set(plugin.granted),
    capIndex: cap,
    capability,
    canSubscribe: capability.type === "hook",
    call: { httpRequests: 0 },
    kv: kv!,
    sockets,
    log: (level, message) => {
      if (LEVEL_RANK[level] >= threshold) send({ type: "log", level, message });
    },
    publish: (topic, payload) => send({ type: "publish", topic, payload }),
    rpc: (method: RpcMethod, args: unknown[]) => rpc(cap, method, args),
  };
}

/** Ask the main thread (memory, events, a kv it serves); resolves with its answer. */
function rpc(cap: number, method: RpcMethod, args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const id = nextRpc++;
    pendingRpc.set(id, { resolve, reject });
    send({ type: "rpc", id, cap, method, args });
  });
}

async function instantiate(cap: number): Promise<Guest> {
  const ctx = (contexts[cap] ??= contextFor(cap));
  const meter = new Meter(interrupt!, ctx.plugin.maxFuel);
  if (artifact) return ComponentGuest.create(artifact, ctx, await componentImports(ctx, componentImportNames), meter);
  // the main thread checked the capability exports against the compiled module (loader.ts)
  return CoreModuleGuest.create(coreModule!, ctx, meter);
}

/** Required exports were checked and modules instrumented and compiled by the main thread: only instantiate here. */
async function start(message: SandboxStart): Promise<void> {
  init = message;
  interrupt = message.interrupt;
  const plugin = message.plugin;
  kv = message.kv === "host" ? new RemoteKv((method, args) => rpc(0, method, args)) : new KvStore(message.dbPath, plugin.name, plugin.maxKvStorageMb);
  if (message.component) {
    artifact = new ComponentArtifact(message.component.js, message.component.modules, plugin.name);
    componentImportNames = message.component.imports;
  } else if (message.module) {
    coreModule = message.module;
  } else {
    throw new Error(`plugin ${plugin.name}: sandbox init carries neither a component nor a core module`);
  }
  for (let cap = 0; cap < plugin.capabilities.length; cap++) guests[cap] = await instantiate(cap);
}

async function runCall(id: number, cap: number, fn: string, args: unknown[]): Promise<void> {
  try {
    let guest = guests[cap];
    if (!guest) guest = guests[cap] = await instantiate(cap);
    const started = performance.now();
    const value = await guest.call(fn, args);
    const execUs = (performance.now() - started) * 1000;
    const compact = encodeResult(id, execUs, value);
    if (compact !== null) self.postMessage(compact);
    else send({ type: "result", id, ok: true, value, execUs });
  } catch (error) {
    if (!(error instanceof GuestFailure) || error.poison) guests[cap] = null;
    send({ type: "result", id, ok: false, value: undefined, error: serialize(error) });
  }
}

self.onmessage = (event: MessageEvent) => {
  if (typeof event.data === "string") {
    const call = decodeCall(event.data);
    if (call) void runCall(call.id, call.cap, call.fn, call.args);
    else send({ type: "log", level: "error", message: `sandbox ignored a malformed call: ${event.data.slice(0, 80)}` });
    return;
  }
  const msg = event.data as ToWorker | null;
  if (!msg || typeof msg !== "object") return;
  switch (msg.type) {
    case "init":
      start(msg).then(
        () => send({ type: "ready" }),
        (error) => send({ type: "init-error", error: { ...serialize(error), code: "PLUGIN_LOAD" } }),
      );
      break;
    case "call":
      void runCall(msg.id, msg.cap, msg.fn, msg.args);
      break;
    case "rpc-result": {
      const pending = pendingRpc.get(msg.id);
      pendingRpc.delete(msg.id);
      if (msg.ok) pending?.resolve(msg.value);
      else pending?.reject(new Error(msg.error ?? "rpc failed"));
      break;
    }
    default:
      send({
        type: "log",
        level: "error",
        message: `sandbox ignored a message it does not know: ${String((msg as { type?: unknown }).type)}`,
      });
  }
};

send({ type: "booted" });
