/**
 * Entry of a shared sandbox Worker. It hosts several plugins' sandboxes ("tenants"): each tenant holds one instance
 * per capability, with its own interrupt flag, kv and sockets. It runs the calls the main thread sends (one at a
 * time per instance; the main thread queues), re-instantiates poisoned instances, drops a tenant on "stop", and
 * forwards logs, events and RPCs tagged with their tenant. A component's transpiled JS is evaluated once per Worker
 * and script (its text's hash), whichever tenants and artifacts use it.
 */
import { availableParallelism } from "node:os";
import { decodeCall, encodeResult } from "./call-codec.ts";
import type { FromWorker, RpcMethod, SandboxStart, ToWorker } from "../protocol.ts";
import type { HostContext } from "../host/context.ts";
import { KvStore } from "../host/kv.ts";
import { RemoteKv } from "../host/kv-remote.ts";
import { componentImports } from "../host/index.ts";
import { ComponentArtifact, ComponentGuest, EvaluatedScripts } from "../guest/component.ts";
import { CoreModuleGuest } from "../guest/core-module.ts";
import { Meter, newInterruptFlag } from "../guest/meter.ts";
import { type Guest, GuestFailure } from "../guest/types.ts";
import type { GuestKv } from "../host/types.ts";
import { WebSocketTable } from "../host/socket-table.ts";
import { SANDBOX_GC_AFTER_STOP_MS, SANDBOX_LINGER_US } from "../limits.ts";
import { lingerWindowUs, Mailbox } from "../../hop/index.ts";

declare const self: Worker;

interface Tenant {
  id: number;
  init: SandboxStart;
  /** Raised by the main thread to stop this tenant's guests (protocol.ts, "flag"). */
  interrupt: WebAssembly.Memory;
  kv: GuestKv;
  sockets: WebSocketTable;
  artifact: ComponentArtifact | null;
  coreModule: WebAssembly.Module | null;
  guests: (Guest | null)[];
  contexts: HostContext[];
  /** Set when the tenant is dropped: its late results and rpcs go nowhere. */
  gone: boolean;
}

const tenants = new Map<number, Tenant>();
/** Worker-wide instance number -> its tenant and capability index. */
const slots = new Map<number, { tenant: Tenant; cap: number }>();
/**
 * The artifacts of the tenants hosted now, by artifact key: the JS text and compiled core modules are held only while
 * a tenant of the key is hosted (each init brings them again).
 */
const artifacts = new Map<string, ComponentArtifact>();
/**
 * What the artifacts' JS evaluated to, by script, for the Worker's life: an evaluated module cannot be unloaded, so a
 * script is evaluated once however often its plugins restart or are rebuilt with the same JS; the pool retires a
 * Worker that has evaluated MAX_ARTIFACTS_PER_WORKER scripts (pool-worker.ts).
 */
const scripts = new EvaluatedScripts();
let nextRpc = 1;
const pendingRpc = new Map<number, { tenant: number; resolve: (v: unknown) => void; reject: (e: Error) => void }>();

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

function contextFor(tenant: Tenant, cap: number): HostContext {
  const plugin = tenant.init.plugin;
  const threshold = LEVEL_RANK[tenant.init.logLevel];
  const capability = plugin.capabilities[cap]!;
  const id = tenant.id;
  return {
    plugin,
    granted: new Set(plugin.granted),
    capIndex: cap,
    capability,
    canSubscribe: capability.type === "hook",
    call: { httpRequests: 0 },
    kv: tenant.kv,
    sockets: tenant.sockets,
    log: (level, message) => {
      if (!tenant.gone && LEVEL_RANK[level] >= threshold) send({ type: "log", tenant: id, level, message });
    },
    publish: (topic, payload) => {
      if (!tenant.gone) send({ type: "publish", tenant: id, topic, payload });
    },
    rpc: (method: RpcMethod, args: unknown[]) => rpc(tenant, cap, method, args),
  };
}

/** Ask the main thread (memory, events, a kv it serves); resolves with its answer. */
function rpc(tenant: Tenant, cap: number, method: RpcMethod, args: unknown[]): Promise<unknown> {
  if (tenant.gone) return Promise.reject(new Error(`plugin ${tenant.init.plugin.name}: its sandbox was stopped`));
  return new Promise((resolve, reject) => {
    const id = nextRpc++;
    pendingRpc.set(id, { tenant: tenant.id, resolve, reject });
    send({ type: "rpc", tenant: tenant.id, id, cap, method, args });
  });
}

async function instantiate(tenant: Tenant, cap: number): Promise<Guest> {
  const ctx = (tenant.contexts[cap] ??= contextFor(tenant, cap));
  const meter = new Meter(tenant.interrupt, ctx.plugin.maxFuel);
  if (tenant.artifact) {
    const imports = await componentImports(ctx, tenant.init.component!.imports);
    return ComponentGuest.create(tenant.artifact, ctx, imports, meter);
  }
  // the main thread checked the capability exports against the compiled module (loader.ts)
  return CoreModuleGuest.create(tenant.coreModule!, ctx, meter);
}

/** Required exports were checked and modules instrumented and compiled by the main thread: only instantiate here. */
async function start(message: SandboxStart): Promise<void> {
  const plugin = message.plugin;
  const tenant: Tenant = {
    id: message.tenant,
    init: message,
    interrupt: newInterruptFlag(),
    kv: message.kv === "host" ? new RemoteKv((method, args) => rpc(tenant, 0, method, args)) : new KvStore(message.dbPath, plugin.name, plugin.maxKvStorageMb),
    sockets: new WebSocketTable(),
    artifact: null,
    coreModule: null,
    guests: [],
    contexts: [],
    gone: false,
  };
  tenants.set(tenant.id, tenant);
  send({ type: "flag", tenant: tenant.id, interrupt: tenant.interrupt });
  message.slots.forEach((slot, cap) => slots.set(slot, { tenant, cap }));
  if (message.component) {
    const { key, js, script, modules } = message.component;
    let artifact = artifacts.get(key);
    if (!artifact) artifacts.set(key, (artifact = new ComponentArtifact(js, modules, plugin.name, script, scripts)));
    else artifact.provide(js, modules);
    tenant.artifact = artifact;
  } else if (message.module) {
    tenant.coreModule = message.module;
  } else {
    throw new Error(`plugin ${plugin.name}: sandbox init carries neither a component nor a core module`);
  }
  for (let cap = 0; cap < plugin.capabilities.length && !tenant.gone; cap++) tenant.guests[cap] = await instantiate(tenant, cap);
}

let collecting: ReturnType<typeof setTimeout> | null = null;

/**
 * A full collection of this Worker's heap once the stops of a burst have arrived: an idle Worker allocates nothing
 * that would trigger one, so the dropped guests' linear memories and compiled code would stay resident while its
 * other tenants keep it alive.
 */
function collectSoon(): void {
  if (collecting) return;
  collecting = setTimeout(() => {
    collecting = null;
    Bun.gc(true);
  }, SANDBOX_GC_AFTER_STOP_MS);
  collecting.unref();
}

/** Forget a tenant: its instances, kv connection, sockets and pending rpcs. */
function drop(id: number): void {
  const tenant = tenants.get(id);
  if (!tenant) return;
  tenant.gone = true;
  tenants.delete(id);
  tenant.init.slots.forEach((slot) => slots.delete(slot));
  tenant.guests.length = 0;
  const key = tenant.init.component?.key;
  if (key !== undefined && ![...tenants.values()].some((t) => t.init.component?.key === key)) artifacts.delete(key);
  collectSoon();
  tenant.sockets.closeAll();
  tenant.kv.close();
  for (const [rpcId, pending] of pendingRpc) {
    if (pending.tenant !== id) continue;
    pendingRpc.delete(rpcId);
    pending.reject(new Error(`plugin ${tenant.init.plugin.name}: its sandbox was stopped`));
  }
}

/** Set by the main thread's first message: the count of its messages, and the count of this Worker's answers. */
let mailbox: Mailbox | null = null;
let answers: Mailbox | null = null;
/** Calls started and not yet answered (a guest may be waiting for an rpc or an HTTP response). */
let running = 0;
/** The watch after an answer (plugins/hop): none when the process may run on one CPU only. */
const LINGER_US = lingerWindowUs(availableParallelism(), SANDBOX_LINGER_US);

/**
 * After a call's answer: once the answer has left (a message posted by a task is delivered after it ends), watch
 * the mailbox for LINGER_US unless another call is running, then return to the event loop (and sleep if nothing
 * came). `seen`: the mailbox count when the answer was posted (a call that came since ends it at once).
 */
function lingerAfterAnswer(): void {
  if (!mailbox || LINGER_US === 0) return;
  const box = mailbox;
  const seen = box.seen();
  setImmediate(() => {
    if (running === 0) box.linger(seen, LINGER_US);
  });
}

async function runCall(id: number, slot: number, fn: string, args: unknown[]): Promise<void> {
  running++;
  try {
    await runGuest(id, slot, fn, args);
  } finally {
    running--;
  }
  // runGuest has posted the answer: counted after it, so the main thread, watching, finds it queued
  answers?.posted();
  lingerAfterAnswer();
}

async function runGuest(id: number, slot: number, fn: string, args: unknown[]): Promise<void> {
  const target = slots.get(slot);
  if (!target) {
    send({ type: "result", id, ok: false, value: undefined, error: { code: "PLUGIN_NOT_FOUND", message: "the sandbox of this call was stopped" } });
    return;
  }
  const { tenant, cap } = target;
  try {
    let guest = tenant.guests[cap];
    if (!guest) guest = tenant.guests[cap] = await instantiate(tenant, cap);
    const started = performance.now();
    const value = await guest.call(fn, args);
    const execUs = (performance.now() - started) * 1000;
    const compact = encodeResult(id, execUs, value);
    if (compact !== null) self.postMessage(compact);
    else send({ type: "result", id, ok: true, value, execUs });
  } catch (error) {
    if ((!(error instanceof GuestFailure) || error.poison) && !tenant.gone) tenant.guests[cap] = null;
    send({ type: "result", id, ok: false, value: undefined, error: serialize(error) });
  }
}

self.onmessage = (event: MessageEvent) => {
  if (typeof event.data === "string") {
    const call = decodeCall(event.data);
    if (call) void runCall(call.id, call.cap, call.fn, call.args);
    else send({ type: "log", tenant: 0, level: "error", message: `sandbox ignored a malformed call: ${event.data.slice(0, 80)}` });
    return;
  }
  const msg = event.data as ToWorker | null;
  if (!msg || typeof msg !== "object") return;
  switch (msg.type) {
    case "mailbox":
      mailbox = new Mailbox(msg.buffer);
      answers = new Mailbox(msg.answers);
      break;
    case "init":
      start(msg).then(
        () => {
          if (tenants.has(msg.tenant)) send({ type: "ready", tenant: msg.tenant });
        },
        (error) => {
          drop(msg.tenant);
          send({ type: "init-error", tenant: msg.tenant, error: { ...serialize(error), code: "PLUGIN_LOAD" } });
        },
      );
      break;
    case "call":
      void runCall(msg.id, msg.cap, msg.fn, msg.args);
      break;
    case "stop":
      drop(msg.tenant);
      send({ type: "stopped", tenant: msg.tenant });
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
        tenant: 0,
        level: "error",
        message: `sandbox ignored a message it does not know: ${String((msg as { type?: unknown }).type)}`,
      });
  }
};

send({ type: "booted" });
