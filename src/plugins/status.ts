import type { CapabilityType } from "./types.ts";

/**
 * Per-adapter counters. They live on the runtime (not in a generation), keyed by plugin/capability type/name,
 * so a reload keeps counting where the previous generation stopped; they reset only with the process.
 * A reloaded plugin whose capability disappears keeps its entry, but listings only show capabilities of the
 * current generation.
 */
export const STATUS_MESSAGE_MAX_CHARS = 1024;
export const STATUS_EVENT_NAME_MAX_CHARS = 256;

export interface AdapterCounters {
  invocations: number;
  errors: number;
  lastDurationMs: number | null;
  lastEvent: { name: string; at: string } | null;
  lastError: { message: string; at: string } | null;
  /** Turns a middleware ended with a block (0 for other capability types). */
  blocks: number;
  /** The last block: its stage and the reason the user got. */
  lastBlock: { stage: string; reason: string; at: string } | null;
  /** Named extra counters an adapter may keep (e.g. dropped events, skipped cron slots). */
  extra: Record<string, number>;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + "…";
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The recorder one adapter writes to. Times are kept as epoch milliseconds and written as ISO text only when read
 * (every middleware, hook and tool call records one; few are ever looked at).
 */
export class AdapterStatus {
  private invocations = 0;
  private errors = 0;
  private lastDurationMs: number | null = null;
  /** The last event's name and time (two fields: every call records one, few are read). */
  private lastEventName: string | null = null;
  private lastEventAt = 0;
  private lastError: { message: string; at: number } | null = null;
  private blocks = 0;
  private lastBlock: { stage: string; reason: string; at: number } | null = null;
  private readonly extra: Record<string, number> = {};

  /** Count an invocation now; call the returned function when it ends (with an error message if it failed). */
  begin(eventName: string): (error?: string) => void {
    const started = performance.now();
    this.invocations++;
    this.event(eventName);
    let done = false;
    return (error?: string) => {
      if (done) return;
      done = true;
      this.lastDurationMs = Math.round((performance.now() - started) * 1000) / 1000;
      if (error !== undefined) this.error(error);
    };
  }

  event(name: string): void {
    this.lastEventName = clip(name, STATUS_EVENT_NAME_MAX_CHARS);
    this.lastEventAt = Date.now();
  }

  error(message: string): void {
    this.errors++;
    this.lastError = { message: clip(message, STATUS_MESSAGE_MAX_CHARS), at: Date.now() };
  }

  /** A middleware blocked the turn at `stage` (not an error: the call did what its author meant). */
  block(stage: string, reason: string): void {
    this.blocks++;
    this.lastBlock = { stage, reason: clip(reason, STATUS_MESSAGE_MAX_CHARS), at: Date.now() };
  }

  increment(counter: string, by = 1): void {
    this.extra[counter] = (this.extra[counter] ?? 0) + by;
  }

  snapshot(): AdapterCounters {
    const { lastEventName, lastError, lastBlock } = this;
    return {
      invocations: this.invocations,
      errors: this.errors,
      lastDurationMs: this.lastDurationMs,
      lastEvent: lastEventName === null ? null : { name: lastEventName, at: iso(this.lastEventAt) },
      lastError: lastError && { message: lastError.message, at: iso(lastError.at) },
      blocks: this.blocks,
      lastBlock: lastBlock && { stage: lastBlock.stage, reason: lastBlock.reason, at: iso(lastBlock.at) },
      extra: { ...this.extra },
    };
  }
}

export interface AdapterStatusEntry {
  type: CapabilityType;
  name: string;
  counters: AdapterCounters;
}

export class StatusStore {
  private readonly entries = new Map<string, AdapterStatus>();

  private key(plugin: string, type: CapabilityType, name: string): string {
    return `${plugin}\u0000${type}\u0000${name}`;
  }

  /** Get or create the recorder of one capability. */
  for(plugin: string, type: CapabilityType, name: string): AdapterStatus {
    const key = this.key(plugin, type, name);
    let status = this.entries.get(key);
    if (!status) this.entries.set(key, (status = new AdapterStatus()));
    return status;
  }

  get(plugin: string, type: CapabilityType, name: string): AdapterCounters | undefined {
    return this.entries.get(this.key(plugin, type, name))?.snapshot();
  }

  /** Counters of the given capabilities (zeroes for one never called), in the given order. */
  list(plugin: string, capabilities: readonly { type: CapabilityType; name: string }[]): AdapterStatusEntry[] {
    return capabilities.map((cap) => ({ type: cap.type, name: cap.name, counters: this.for(plugin, cap.type, cap.name).snapshot() }));
  }
}
