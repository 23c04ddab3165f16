import type { Subprocess } from "bun";
import type { ChannelConfig } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { createLogger, formatLogLine, getLogSink, type Logger } from "../core/logger.ts";
import { becomeSubreaper, ProcessTree, RestartPolicy, waitAtMost } from "../core/supervise/index.ts";
import type { ChannelStatsWire, ChildMessage, ParentMessage } from "./ipc.ts";
import { LineDecoder } from "../plugins/remote/protocol/codec.ts";
import { CHANNEL_HTTP_TIMEOUT_MS, CHANNEL_LOG_LINE_MAX_BYTES, CHANNEL_KILL_AFTER_MS, CHANNEL_MAX_INFLIGHT_HTTP, CHANNEL_RESTART_LIMITS } from "./limits.ts";
import { channelKind } from "./registry.ts";
import type { ForwardedRequest, ForwardedResponse } from "./types.ts";

export type ChannelProcessState = "starting" | "running" | "restarting" | "crash_loop" | "stopped";

/** What /api/channels and /health report per channel. */
export interface ChannelInfo {
  name: string;
  kind: string;
  state: ChannelProcessState;
  pid: number | null;
  restarts: number;
  last_inbound: string | null;
  last_outbound: string | null;
  last_error: string | null;
  /** When the last error happened (ISO time). */
  last_error_at: string | null;
  detail: string;
  plugin_generation: number | null;
  stats: (Omit<ChannelStatsWire, "lastInbound" | "lastOutbound" | "lastError" | "lastErrorAt"> & { rejected: number }) | null;
}

type ReloadPlugins = Extract<ParentMessage, { type: "reload_plugins" }>;

interface Slot {
  name: string;
  kind: string;
  proc: Subprocess | null;
  /** The current process said "ready" (it listens for messages from here on). */
  ready: boolean;
  state: ChannelProcessState;
  startedAt: number;
  restarts: number;
  lastError: string | null;
  lastErrorAt: number | null;
  detail: string;
  generation: number | null;
  /** A plugin reload that came while the current process was starting: it is told once it says "ready". */
  missedReload: ReloadPlugins | null;
  stats: ChannelStatsWire | null;
  policy: RestartPolicy;
  timer: ReturnType<typeof setTimeout> | null;
  pending: Map<number, (response: ForwardedResponse) => void>;
}

export interface SupervisorOptions {
  workspace: string;
  channels: Record<string, ChannelConfig>;
  /** The command that runs this binary (default: selfCommand()). */
  command?: string[];
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Shorter time limits for tests; each defaults to its constant in limits.ts. */
  limits?: Partial<SupervisorLimits>;
  /** Where a channel process's stderr lines go: the log sink of this process (stderr, and the gateway's logs/prx.log). */
  logLine?: (line: string) => void;
}

export interface SupervisorLimits {
  /** CHANNEL_HTTP_TIMEOUT_MS */
  httpTimeoutMs: number;
  /** CHANNEL_KILL_AFTER_MS */
  killAfterMs: number;
}

function newSlot(name: string, config: ChannelConfig): Slot {
  return { name, kind: channelKind(name, config), proc: null, ready: false, state: "starting", startedAt: 0, restarts: 0, lastError: null, lastErrorAt: null, detail: "starting", generation: null, missedReload: null, stats: null, policy: new RestartPolicy(CHANNEL_RESTART_LIMITS), timer: null, pending: new Map() };
}

/** How to run this same program again: the compiled binary itself, or bun with the entry script. */
export function selfCommand(): string[] {
  const script = process.argv[1];
  return script && !script.startsWith("/$bunfs/") && !script.startsWith("B:/~BUN/") ? [process.execPath, script] : [process.execPath];
}

/**
 * Runs every enabled channel as a child process of the gateway (`<prx> channel run <name> --supervised`), restarts
 * it with capped exponential backoff, speaks to it over Bun's IPC (one zod schema per message), forwards plugin
 * reloads and HTTP requests, and keeps each channel's liveness for /health and /api/channels.
 */
export class ChannelSupervisor {
  private readonly slots = new Map<string, Slot>();
  private readonly log: Logger;
  private readonly command: string[];
  private readonly env: Record<string, string | undefined>;
  private nextId = 1;
  private stopping = false;
  /** The children's wire (its zod schemas) loads with the first child: a gateway without channels never loads it. */
  private wire: Promise<typeof import("./ipc.ts")> | undefined;
  private readonly httpTimeoutMs: number;
  private readonly killAfterMs: number;

  constructor(private readonly o: SupervisorOptions) {
    this.log = o.logger ?? createLogger("channels");
    this.command = o.command ?? selfCommand();
    this.httpTimeoutMs = o.limits?.httpTimeoutMs ?? CHANNEL_HTTP_TIMEOUT_MS;
    this.killAfterMs = o.limits?.killAfterMs ?? CHANNEL_KILL_AFTER_MS;
    const env = { ...(o.env ?? process.env) };
    delete env.BUN_BE_BUN; // the binary would become the bun CLI
    this.env = env;
    this.channels = o.channels;
    for (const [name, config] of Object.entries(o.channels)) if (config.enabled) this.slots.set(name, newSlot(name, config));
  }

  private channels: Record<string, ChannelConfig>;
  private started = false;

  /**
   * A reloaded `[channels]`: a channel enabled now starts, one disabled or removed stops (it finishes its running
   * turns within its grace), one whose settings changed restarts with them (a process reads its settings at start).
   * Others keep running. Returns what it did, one phrase per channel.
   */
  async reconfigure(next: Record<string, ChannelConfig>): Promise<string[]> {
    const before = this.channels;
    this.channels = next;
    const done: string[] = [];
    const work: Promise<void>[] = [];
    for (const [name, slot] of [...this.slots]) {
      const config = Object.hasOwn(next, name) ? next[name] : undefined;
      if (config?.enabled) continue;
      this.slots.delete(name);
      done.push(`channel ${name} stopped`);
      work.push(this.retire(slot));
    }
    for (const [name, config] of Object.entries(next)) {
      if (!config.enabled) continue;
      const slot = this.slots.get(name);
      if (!slot) {
        const created = newSlot(name, config);
        this.slots.set(name, created);
        if (this.started) this.spawn(created);
        done.push(`channel ${name} started`);
      } else if (JSON.stringify(before[name]) !== JSON.stringify(config)) {
        slot.kind = channelKind(name, config);
        done.push(`channel ${name} restarted`);
        work.push(this.restart(name).then(() => undefined));
      }
    }
    await Promise.all(work);
    return done;
  }

  /** Stop a slot taken out of the set: its process finishes its turns; no restart follows. */
  private async retire(slot: Slot): Promise<void> {
    if (slot.timer) clearTimeout(slot.timer);
    const proc = slot.proc;
    slot.proc = null;
    slot.state = "stopped";
    for (const resolve of slot.pending.values()) resolve({ status: 503, headers: {}, body: JSON.stringify({ error: `channel ${slot.name} is disabled` }) });
    slot.pending.clear();
    if (proc) await this.terminate(slot, proc);
  }

  get names(): string[] {
    return [...this.slots.keys()];
  }

  start(): void {
    this.started = true;
    for (const slot of this.slots.values()) this.spawn(slot);
  }

  private spawn(slot: Slot): void {
    if (this.stopping) return;
    slot.timer = null;
    slot.state = slot.restarts === 0 ? "starting" : slot.state === "crash_loop" ? "crash_loop" : "restarting";
    slot.startedAt = Date.now();
    slot.ready = false;
    // a process started from here on reads the plugins as they are now
    slot.missedReload = null;
    // the channel process stays in prx's process group (a terminal's Ctrl-C reaches it); its cgroup and owner mark
    // find what it starts, which ends with it
    void becomeSubreaper();
    const tree = new ProcessTree(`channel-${slot.name}`);
    const wire = (this.wire ??= import("./ipc.ts"));
    const proc = Bun.spawn([...this.command, "channel", "run", slot.name, "--supervised", "-w", this.o.workspace], {
      env: tree.env(this.env),
      stdin: "ignore",
      stdout: "inherit",
      stderr: "pipe",
      serialization: "json",
      ipc: (message) => {
        // in arrival order: those that come before the wire has loaded wait for it together
        if (Bun.peek.status(wire) === "fulfilled") this.onChildMessage(slot, proc, message, Bun.peek(wire) as typeof import("./ipc.ts"));
        else void wire.then((loaded) => this.onChildMessage(slot, proc, message, loaded));
      },
    });
    tree.adopt(proc.pid);
    slot.proc = proc;
    void this.forwardLog(slot, proc.stderr);
    this.log.info(`channel ${slot.name} started (pid ${proc.pid})`);
    void proc.exited.then((code) => {
      this.onExit(slot, proc, code);
      // the next process of this slot has a tree of its own: this one's can be reaped meanwhile
      void tree.reap();
    });
  }

  /** The child's log, line by line, into this process's log (one writer of logs/prx.log: the gateway). */
  private async forwardLog(slot: Slot, stderr: ReadableStream<Uint8Array>): Promise<void> {
    const write = this.o.logLine ?? ((line: string) => getLogSink()(line));
    const lines = new LineDecoder(
      write,
      (bytes) => write(formatLogLine("warn", `channel.${slot.name}`, `a log line of ${bytes} bytes, over ${CHANNEL_LOG_LINE_MAX_BYTES}, left out`)),
      CHANNEL_LOG_LINE_MAX_BYTES,
    );
    try {
      for await (const chunk of stderr) lines.push(chunk);
    } catch (error) {
      this.log.warn(`reading the log of channel ${slot.name} failed: ${errorMessage(error)}`);
    }
  }

  private onChildMessage(slot: Slot, proc: Subprocess, raw: unknown, wire: typeof import("./ipc.ts")): void {
    if (slot.proc !== proc) return;
    const parsed = wire.ChildMessageSchema.safeParse(raw);
    if (!parsed.success) return this.log.warn(`channel ${slot.name} sent a malformed message`, { issue: parsed.error.issues[0]?.message });
    const message: ChildMessage = parsed.data;
    switch (message.type) {
      case "ready": {
        slot.ready = true;
        slot.state = "running";
        const missed = slot.missedReload;
        slot.missedReload = null;
        if (missed) this.send(slot, missed);
        return;
      }
      case "opened":
        slot.generation = message.generation;
        return;
      case "status":
        slot.detail = message.health.detail;
        slot.stats = message.stats;
        if (message.stats.lastError) this.failed(slot, message.stats.lastError, message.stats.lastErrorAt ?? Date.now());
        return;
      case "error":
        this.failed(slot, message.message, message.at);
        return;
      case "reloaded":
        slot.generation = message.generation;
        if (message.error) this.failed(slot, `plugin reload: ${message.error}`, Date.now());
        return;
      case "http_result": {
        const resolve = slot.pending.get(message.id);
        slot.pending.delete(message.id);
        resolve?.(message.response);
      }
    }
  }

  private onExit(slot: Slot, proc: Subprocess, code: number | null): void {
    if (slot.proc !== proc) return;
    slot.proc = null;
    for (const resolve of slot.pending.values()) resolve({ status: 503, headers: {}, body: JSON.stringify({ error: `channel ${slot.name} exited` }) });
    slot.pending.clear();
    if (this.stopping) {
      slot.state = "stopped";
      return;
    }
    const now = Date.now();
    const how = proc.signalCode ? `killed by ${proc.signalCode}` : `exited with code ${code}`;
    const { delayMs: delay, crashLoop } = slot.policy.exited(slot.startedAt, now);
    slot.restarts += 1;
    this.failed(slot, `process ${how}`, now);
    if (crashLoop) {
      slot.state = "crash_loop";
      this.log.error(`channel ${slot.name} is in a crash loop (${how}); restarting in ${delay} ms; see its log lines above`);
    } else {
      slot.state = "restarting";
      this.log.warn(`channel ${slot.name} ${how}; restarting in ${delay} ms`);
    }
    slot.timer = setTimeout(() => this.spawn(slot), delay);
  }

  private failed(slot: Slot, message: string, at: number): void {
    slot.lastError = message;
    slot.lastErrorAt = at;
  }

  private send(slot: Slot, message: ParentMessage): boolean {
    if (!slot.proc || !slot.ready) return false;
    try {
      slot.proc.send(message);
      return true;
    } catch (error) {
      this.log.warn(`could not reach channel ${slot.name}: ${errorMessage(error)}`);
      return false;
    }
  }

  /** Every channel process reloads its plugins too, so all of them serve the same generation of plugin code. */
  forwardReload(name: string | null, generation: number): void {
    for (const slot of this.slots.values()) {
      if (slot.proc && !slot.ready) {
        // started before this reload: it may have read the plugins as they were; two plugins missed make a full reload
        const missed = slot.missedReload;
        slot.missedReload = { type: "reload_plugins", name: missed && missed.name !== name ? null : name, generation };
      } else this.send(slot, { type: "reload_plugins", name, generation });
    }
  }

  /** The gateway applied a new config.toml: every channel process applies it too (its own settings restart it instead). */
  forwardConfigReload(): void {
    for (const slot of this.slots.values()) if (slot.ready) this.send(slot, { type: "reload_config" });
  }

  /** A request for a channel that receives over HTTP, answered by its process. */
  forward(name: string, request: ForwardedRequest): Promise<ForwardedResponse> {
    const slot = this.slot(name);
    if (slot.pending.size >= CHANNEL_MAX_INFLIGHT_HTTP)
      throw new PrxError("RATE_LIMITED", `channel ${name} has ${CHANNEL_MAX_INFLIGHT_HTTP} requests in flight`, { status: 429, hint: "retry shortly" });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        slot.pending.delete(id);
        resolve({ status: 504, headers: {}, body: JSON.stringify({ error: `channel ${name} did not answer within ${this.httpTimeoutMs} ms` }) });
      }, this.httpTimeoutMs);
      slot.pending.set(id, (response) => (clearTimeout(timer), resolve(response)));
      if (!this.send(slot, { type: "http", id, request })) {
        slot.pending.delete(id);
        clearTimeout(timer);
        resolve({ status: 503, headers: { "retry-after": "1" }, body: JSON.stringify({ error: `channel ${name} is ${slot.state}; retry shortly` }) });
      }
    });
  }

  /** Stop the process and start it again at once (the crash-loop record is cleared). */
  async restart(name: string): Promise<ChannelInfo> {
    const slot = this.slot(name);
    if (slot.timer) clearTimeout(slot.timer);
    const proc = slot.proc;
    slot.proc = null;
    if (proc) await this.terminate(slot, proc);
    slot.policy.reset();
    slot.restarts += 1;
    this.spawn(slot);
    return this.info(slot);
  }

  /** Ask the process to stop (it finishes its running turns within its grace); kill it if it has not exited in time. */
  private async terminate(slot: Slot, proc: Subprocess): Promise<void> {
    try {
      proc.send({ type: "stop" } satisfies ParentMessage);
    } catch {
      proc.kill("SIGTERM"); // the IPC channel is already gone: a signal stops it the same way
    }
    if (!(await waitAtMost(proc.exited, this.killAfterMs))) {
      this.log.warn(`channel ${slot.name} did not stop within ${this.killAfterMs} ms; killing it (its unanswered messages are answered at the next start)`);
      proc.kill("SIGKILL");
    }
    await proc.exited;
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name);
    if (!slot)
      throw new PrxError("NOT_FOUND", `no enabled channel named "${name}"`, { status: 404, hint: `enabled channels: ${this.names.join(", ") || "none"}` });
    return slot;
  }

  private info(slot: Slot): ChannelInfo {
    const iso = (t: number | null | undefined) => (t ? new Date(t).toISOString() : null);
    const stats = slot.stats;
    return {
      name: slot.name,
      kind: slot.kind,
      state: slot.state,
      pid: slot.proc?.pid ?? null,
      restarts: slot.restarts,
      last_inbound: iso(stats?.lastInbound),
      last_outbound: iso(stats?.lastOutbound),
      last_error: slot.lastError,
      last_error_at: iso(slot.lastErrorAt),
      detail: slot.detail,
      plugin_generation: slot.generation,
      stats: stats ? { inbound: stats.inbound, answered: stats.answered, duplicates: stats.duplicates, ignored: stats.ignored, refused: stats.refused, failed: stats.failed, rejected: stats.rejected ?? 0 } : null,
    };
  }

  list(): ChannelInfo[] {
    return [...this.slots.values()].map((slot) => this.info(slot));
  }

  /** /health: not ok while a channel is in a crash loop. */
  health(): { ok: boolean; detail: string } {
    const infos = this.list();
    if (infos.length === 0) return { ok: true, detail: "no channels enabled" };
    const looping = infos.filter((i) => i.state === "crash_loop").map((i) => i.name);
    const detail = infos.map((i) => `${i.name}: ${i.state}${i.restarts ? ` (${i.restarts} restarts)` : ""}`).join(", ");
    return { ok: looping.length === 0, detail: looping.length ? `crash loop: ${looping.join(", ")}; ${detail}` : detail };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const running: Promise<void>[] = [];
    for (const slot of this.slots.values()) {
      if (slot.timer) clearTimeout(slot.timer);
      if (slot.proc) running.push(this.terminate(slot, slot.proc));
    }
    await Promise.all(running);
  }
}
