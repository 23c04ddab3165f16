import { z } from "zod";
import { CapabilityTypes, PluginKinds } from "../types.ts";

/**
 * Messages between the main thread (sandbox.ts, pool-worker.ts) and a shared sandbox Worker (worker.ts), which
 * hosts several plugins' sandboxes ("tenants", each numbered by the Worker's main-side owner). The main thread
 * parses every FromWorker message, and the init message once before sending it (loader.ts). The Worker only
 * imports the types: its senders build each message against ToWorker, and importing zod would add ~25 ms to every
 * Worker start.
 */

const Capability = z.object({ type: z.enum(CapabilityTypes), name: z.string() });

export const SandboxInitSchema = z.object({
  type: z.literal("init"),
  plugin: z.object({
    name: z.string(),
    kind: z.enum(PluginKinds),
    entryPath: z.string(),
    capabilities: z.array(Capability),
    granted: z.array(z.string()),
    config: z.record(z.string(), z.string()),
    httpAllowlist: z.array(z.string()),
    maxMemoryMb: z.number().positive(),
    maxHttpRequestsPerCall: z.number().int().nonnegative(),
    maxKvStorageMb: z.number().nonnegative(),
    /** Fuel per call (FUEL.md in instrument/), null for no limit. */
    maxFuel: z.number().int().nonnegative().nullable(),
  }),
  /** A component: jco's transpiled JS, the interfaces it imports, and its core modules compiled by the main thread. */
  component: z
    .object({
      /** Names the prepared artifact (content, memory cap, metering). */
      key: z.string(),
      js: z.string(),
      /**
       * The JS text's SHA-256: a Worker evaluates each script once, whatever artifacts share it (a rebuilt plugin whose
       * core modules alone changed has the previous build's JS).
       */
      script: z.string(),
      imports: z.array(z.string()),
      modules: z.record(z.string(), z.instanceof(WebAssembly.Module)),
    })
    .nullable(),
  /** A core module, compiled (memory-capped) by the main thread; null for a component. */
  module: z.instanceof(WebAssembly.Module).nullable(),
  /** Host log threshold when the sandbox started: guest log lines below it are dropped in the worker. */
  logLevel: z.enum(["trace", "debug", "info", "warn", "error", "silent"]),
  /** SQLite file holding plugin KV (opened by the worker, WAL). */
  dbPath: z.string(),
  /**
   * "local": the worker opens dbPath itself; "host": kv calls go to the main thread's plugin KV store (PostgreSQL,
   * shared by replicas), suspending the guest until the answer (JSPI).
   */
  kv: z.enum(["local", "host"]).default("local"),
});
export type SandboxInit = z.infer<typeof SandboxInitSchema>;
/** Where a sandbox's kv is served (SandboxInit.kv): it decides how jco lowers the kv imports (host/index.ts). */
export type KvPlacement = SandboxInit["kv"];

/**
 * The init message as a Worker gets it: the plugin's init, the tenant number of this incarnation of its sandbox
 * in that Worker and the Worker-wide number (slot) of each capability instance (what a call names). The Worker
 * creates the incarnation's own interrupt flag and sends it back ("flag") before it runs any guest code.
 */
export const SandboxStartSchema = SandboxInitSchema.extend({
  tenant: z.number().int().positive(),
  slots: z.array(z.number().int().nonnegative()),
});
export type SandboxStart = z.infer<typeof SandboxStartSchema>;

const SerializedError = z.object({ code: z.string(), message: z.string(), hint: z.string().optional() });
export type SerializedError = z.infer<typeof SerializedError>;

export const ToWorkerSchema = z.discriminatedUnion("type", [
  SandboxStartSchema,
  z.object({
    type: z.literal("call"),
    id: z.number(),
    cap: z.number().int(),
    fn: z.string(),
    args: z.array(z.unknown()),
  }),
  /** Drop the tenant (its instances, kv connection, sockets, pending rpcs); answered with "stopped". */
  z.object({ type: z.literal("stop"), tenant: z.number().int() }),
  /**
   * The first message a Worker gets: the count of messages posted to it (`buffer`) and the count of answers it posts
   * (`answers`), each a Mailbox (plugins/hop/mailbox.ts).
   */
  z.object({ type: z.literal("mailbox"), buffer: z.instanceof(SharedArrayBuffer), answers: z.instanceof(SharedArrayBuffer) }),
  z.object({
    type: z.literal("rpc-result"),
    id: z.number(),
    ok: z.boolean(),
    value: z.unknown(),
    error: z.string().optional(),
  }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

export const RpcMethods = [
  "memory.store",
  "memory.recall",
  "events.subscribe",
  "events.unsubscribe",
  "kv.get",
  "kv.set",
  "kv.delete",
  "kv.list-keys",
] as const;
export type RpcMethod = (typeof RpcMethods)[number];

export const FromWorkerSchema = z.discriminatedUnion("type", [
  /** The Worker evaluated its modules and waits for init (a pre-started pool Worker is warm). */
  z.object({ type: z.literal("booted") }),
  /**
   * The tenant's interrupt flag, a shared WebAssembly.Memory the main thread raises (guest/meter.ts) to stop this
   * plugin's guests: every instrumented core module imports it and traps at its next check once it is raised.
   * Neighbours in the same Worker have flags of their own; a new incarnation gets a new one. The Worker creates it
   * (sent before the tenant's first instantiation) because creating a WebAssembly.Memory makes JavaScriptCore run a
   * full collection of the creating thread's heap: a few hundred KB in a sandbox Worker, the whole host on the main
   * thread (10-30 ms per plugin start in a gateway).
   */
  z.object({ type: z.literal("flag"), tenant: z.number().int(), interrupt: z.instanceof(WebAssembly.Memory) }),
  z.object({ type: z.literal("ready"), tenant: z.number().int() }),
  z.object({ type: z.literal("init-error"), tenant: z.number().int(), error: SerializedError }),
  /** The tenant is gone from the Worker (answer to "stop"). */
  z.object({ type: z.literal("stopped"), tenant: z.number().int() }),
  z.object({
    type: z.literal("result"),
    id: z.number(),
    ok: z.boolean(),
    value: z.unknown(),
    error: SerializedError.optional(),
    /** How long the guest function ran inside the Worker, in microseconds. */
    execUs: z.number().optional(),
  }),
  /** tenant 0: the Worker's own line (a malformed message it ignored). */
  z.object({
    type: z.literal("log"),
    tenant: z.number().int(),
    level: z.enum(["trace", "debug", "info", "warn", "error"]),
    message: z.string(),
  }),
  z.object({ type: z.literal("publish"), tenant: z.number().int(), topic: z.string(), payload: z.string() }),
  z.object({
    type: z.literal("rpc"),
    tenant: z.number().int(),
    id: z.number(),
    cap: z.number().int(),
    method: z.enum(RpcMethods),
    args: z.array(z.unknown()),
  }),
]);
export type FromWorker = z.infer<typeof FromWorkerSchema>;
