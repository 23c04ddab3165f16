import { randomUUID } from "node:crypto";
import type { Logger } from "../../../core/logger.ts";
import type { GuestEventSink, PluginHostServices } from "../../types.ts";
import { MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN, MAX_KV_LIST_KEYS } from "../limits.ts";

/** Optional bus feature: when the host's event publisher can subscribe, hook instances may call events.subscribe. */
export interface EventSubscriber {
  subscribe(pattern: string, handler: (topic: string, payload: unknown) => void): () => void;
}

/** Calls a capability's export on the plugin's own sandbox (how subscribed events reach `on-event`). */
export type CallGuest = (cap: number, fn: string, args: unknown[]) => Promise<unknown>;

/**
 * The host side of the RPCs a guest makes from its sandbox Worker (memory, events, and KV when the storage is shared;
 * local KV, HTTP, logs and the rest are served inside the Worker): one per sandbox, holding the guest's event subscriptions until it is released.
 */
export class SandboxHostRpc {
  private readonly subscriptions = new Map<number, () => void>();
  private nextSubscription = 1;
  /** Per capability: where events of the guest's own subscriptions go instead of a plain on-event call. */
  private readonly eventSinks = new Map<number, GuestEventSink>();

  constructor(
    private readonly pluginName: string,
    private readonly host: PluginHostServices,
    private readonly log: Logger,
    private readonly callGuest: CallGuest,
    /** The plugin's `[resources] max_kv_storage_mb`, for a kv served here. */
    private readonly kvQuotaBytes = 0,
  ) {}

  private kv() {
    const store = this.host.storage?.pluginKv;
    if (!store) throw new Error("this host serves no plugin kv store (the sandbox keeps kv in the workspace database)");
    return store;
  }

  /** Route events of capability `cap`'s own subscriptions through `sink` (see PluginInstance.routeGuestEvents). */
  setEventSink(cap: number, sink: GuestEventSink): void {
    this.eventSinks.set(cap, sink);
  }

  async handle(cap: number, method: string, args: unknown[]): Promise<unknown> {
    switch (method) {
      case "memory.store": {
        const backend = this.memoryBackend();
        const key = `plugin:${this.pluginName}:${randomUUID()}`;
        await backend.store(key, String(args[0]), String(args[1]));
        return key;
      }
      case "memory.recall": {
        const entries = await this.memoryBackend().recall(String(args[0]), Number(args[1]));
        return entries.map((e) => ({ id: e.id, text: e.content, category: e.category, importance: e.score ?? 0 }));
      }
      case "kv.get":
        return (await this.kv().get(this.pluginName, String(args[0]))) ?? null;
      case "kv.set":
        await this.kv().set(this.pluginName, String(args[0]), args[1] as Uint8Array, this.kvQuotaBytes);
        return null;
      case "kv.delete":
        return this.kv().delete(this.pluginName, String(args[0]));
      case "kv.list-keys":
        return this.kv().listKeys(this.pluginName, String(args[0]), MAX_KV_LIST_KEYS);
      case "events.subscribe":
        return this.subscribe(cap, String(args[0]));
      case "events.unsubscribe": {
        const off = this.subscriptions.get(Number(args[0]));
        if (!off) throw new Error(`no subscription ${String(args[0])}`);
        off();
        this.subscriptions.delete(Number(args[0]));
        return null;
      }
    }
    throw new Error(`unknown rpc ${method}`);
  }

  /** The guest holds event subscriptions of its own. */
  subscribed(): boolean {
    return this.subscriptions.size > 0;
  }

  /** Drop every subscription the guest made. */
  release(): void {
    for (const off of this.subscriptions.values()) off();
    this.subscriptions.clear();
  }

  private subscribe(cap: number, pattern: string): number {
    const bus = this.host.events as unknown as Partial<EventSubscriber>;
    if (typeof bus.subscribe !== "function")
      throw new Error("events.subscribe is unsupported: this host's event bus cannot subscribe");
    if (this.subscriptions.size >= MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN) {
      throw new Error(`more than ${MAX_EVENT_SUBSCRIPTIONS_PER_PLUGIN} event subscriptions`);
    }
    const id = this.nextSubscription++;
    const off = bus.subscribe.call(this.host.events, pattern, (topic, payload) => {
      const text = typeof payload === "string" ? payload : JSON.stringify(payload ?? null);
      const sink = this.eventSinks.get(cap);
      void (async () => {
        try {
          await (sink ? sink(topic, text) : this.callGuest(cap, "on-event", [topic, text]));
        } catch (error) {
          this.log.warn(`on-event for ${topic} failed`, { error: (error as Error).message });
        }
      })();
    });
    this.subscriptions.set(id, off);
    return id;
  }

  private memoryBackend() {
    const backend = this.host.memory();
    if (!backend) throw new Error('no memory backend is configured (memory.backend = "none")');
    return backend;
  }
}
