import { events, request } from "./api.ts";

/** One snapshot of GET /api/status/stream. */
export interface Snapshot {
  at: string;
  status: { version: string; uptime_s: number; workspace: string; provider: string; model: string; memory_backend: string; counts: { sessions: number; memories: number; tools: number }; gateway: { in_flight_turns: number } };
  health: { status: string; checks: Record<string, { ok: boolean; detail?: string }> };
  plugins?: PluginList | { state: string };
  cron?: { jobs: CronJob[] } | { state: string };
  events?: { published: number; rejected: number; delivered: number; dropped: number; subscriptions: number; listeners: number } | { state: string };
  channels?: { channels: Channel[] };
}

export interface Counters {
  invocations: number;
  errors: number;
  last_duration_ms: number | null;
  last_event: { name: string; at: string } | null;
  last_error: { message: string; at: string } | null;
  blocks: number;
}
export interface Plugin {
  name: string;
  version: string | null;
  kind: string | null;
  description: string;
  dir: string;
  status: string;
  message: string | null;
  error_code: string | null;
  capabilities: Array<{ type: string; name: string; live: boolean; schedule: string | null; counters: Counters }>;
  permissions: { missing: string[]; granted: string[] };
  warnings: string[];
  reload: { outcome: string; error: string | null };
}
export interface PluginList {
  plugins: Plugin[];
  count: number;
  generation: number;
}
export interface CronJob {
  id: string;
  schedule: string;
  nextDue: string | null;
  lastRun: { ok: boolean; at: string } | null;
  lastError: { message: string; at: string } | null;
  fired: number;
  errors: number;
  running: boolean;
}
export interface Channel {
  name: string;
  kind: string;
  state: string;
  pid: number | null;
  restarts: number;
  last_inbound: string | null;
  last_outbound: string | null;
  last_error: string | null;
  last_error_at: string | null;
  detail: string;
  plugin_generation: number | null;
  stats: { inbound: number; answered: number; duplicates: number; ignored: number; refused: number; failed: number } | null;
}

type Listener = (snapshot: Snapshot) => void;
const listeners = new Set<Listener>();
let latest: Snapshot | null = null;
let running: AbortController | null = null;

/** Follow the live status stream while someone listens; reconnects after a drop. */
export function onSnapshot(listener: Listener): () => void {
  listeners.add(listener);
  if (latest) listener(latest);
  if (!running) void follow();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) stopLive();
  };
}

export function stopLive(): void {
  running?.abort();
  running = null;
  latest = null;
}

async function follow(): Promise<void> {
  const controller = new AbortController();
  running = controller;
  while (!controller.signal.aborted) {
    try {
      const response = await request("/api/status/stream", { signal: controller.signal, headers: { accept: "text/event-stream" } });
      for await (const { event, data } of events(response)) {
        if (event !== "status") continue;
        latest = data as Snapshot;
        for (const listener of listeners) listener(latest);
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      console.warn("status stream dropped; reconnecting", error);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
