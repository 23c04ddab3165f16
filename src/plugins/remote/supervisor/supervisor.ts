import type { JsonValue } from "../../../core/json/index.ts";
import { errorMessage } from "../../../core/errors.ts";
import { createLogger, type Logger } from "../../../core/logger.ts";
import { waitAtMost } from "../../../core/supervise/index.ts";
import type { AgentIdentity } from "../agent.ts";
import { decodeWorkerMessage, encodeHostRpcReply } from "./inbound.ts";
import { fly } from "./call-flight.ts";
import { CallTable, callbackText } from "./calls.ts";
import { handleHostRpc, refusedHostRpc, type HostRpcPeer } from "../host/rpc/index.ts";
import { HOST_CALL_REFUSAL_DELAY_MS, HostCallBudget, RefusalLog, RefusalPacer } from "../../host-calls/index.ts";
import {
  REMOTE_CANCEL_GRACE_MS,
  REMOTE_MAX_PENDING_CALLS,
  REMOTE_MAX_RESTARTS_PER_MINUTE,
  REMOTE_MEMORY_CHECK_MS,
  REMOTE_RESTART_LIMITS,
  REMOTE_SHUTDOWN_GRACE_MS,
} from "../limits.ts";
import { RestartPolicy } from "../../../core/supervise/index.ts";
import { keepsRunning } from "../on-demand/policy.ts";
import { launchConfigFor } from "./launch-config.ts";
import { Lifecycle } from "./lifecycle.ts";
import { memoryCapOf, MemoryTicker, type MemoryGuard } from "../host/memory/index.ts";
import { PluginOutputLog } from "../host/output/index.ts";
import { memoryGuardFor } from "./memory-watch.ts";
import { Restarts } from "../restart.ts";
import { SupervisorStats } from "./stats.ts";
import { remoteErrors } from "./failures.ts";
import { Handshake } from "./handshake.ts";
import { encodeMessage, type HostRpcResultMessage, type PluginDescriptor, type SurfaceKind, type WorkerToHostMessage } from "../protocol/index.ts";
import { startProcessTransport, startWorkerTransport, type HostTransport } from "../transport/index.ts";
import type {
  ActionCalls,
  CallbackRegistry,
  KillReason,
  RefusedDetail,
  RefusedKind,
  RemoteCallOptions,
  RemoteHostBindings,
  RemoteStatus,
  StartRemotePluginOptions,
} from "../types.ts";
import { fromWireError } from "../wire-error.ts";
import type { LaunchConfig } from "../worker-runtime/launcher.ts";

/** Spawns one remote plugin, keeps it alive (restarts with backoff), and correlates calls in both directions. */
export class RemoteSupervisor implements HostRpcPeer, ActionCalls {
  readonly log: Logger;
  private transport: HostTransport | null = null;
  private desc: PluginDescriptor | null = null;
  private readonly calls = new CallTable();
  private readonly stats = new SupervisorStats();
  private readonly counters = this.stats.counters;
  private readonly life: Lifecycle;
  private readonly output: PluginOutputLog;
  private readonly restarts: Restarts;
  /** The plugin's runtime.* budget; it outlives restarts (a restarted plugin does not get a fresh one). */
  private readonly hostBudget: HostCallBudget;
  private readonly refusals: RefusalPacer;
  private readonly refusalLog: RefusalLog;
  private memory: MemoryGuard | null = null;
  /** Why the host is killing the current transport (its exit then reports this, not an exit code). */
  private killing: KillReason | null = null;
  private stopping = false;
  readonly callbacks: CallbackRegistry = new Map();
  /** Provider calls of this plugin in progress: composeState skips providers then, so a provider cannot recurse. */
  providerDepth = 0;
  /** Who the agent is for this plugin (runtime.agentId, character, ...). */
  readonly agent: AgentIdentity;
  /** When the plugin last had a call or said something (not its memory reports): performance.now(). */
  private lastActivity = 0;
  private readonly now: () => number;
  /** Removes the idle check from the ticker; null while none is registered. */
  private unwatchIdle: (() => void) | null = null;
  private idleTicker: MemoryTicker | null = null;
  /** A start on demand under way: calls arriving meanwhile wait for it. */
  private waking: Promise<void> | null = null;
  /** An idle stop under way, and the transport it is stopping (its exit is not a crash). */
  private parked: Promise<void> | null = null;
  private parking: HostTransport | null = null;
  /** Failed starts on demand: too many in a minute leave the plugin failed, as crashes do. */
  private readonly wakeFailures = new RestartPolicy(REMOTE_RESTART_LIMITS);

  constructor(
    readonly options: StartRemotePluginOptions,
    /** How a Worker/subprocess is started (injectable for in-process measurements). */
    private readonly startTransport: (config: LaunchConfig) => HostTransport = (config) =>
      options.transport === "process" ? startProcessTransport(config) : startWorkerTransport(config),
  ) {
    this.log = createLogger(`remote.${options.name}`);
    // the config schema (agent-default.ts) loads only for a supervisor given no identity
    this.agent = options.agent ?? (require("../agent-default.ts") as typeof import("../agent-default.ts")).defaultAgentIdentity();
    this.life = new Lifecycle(options.name, this.stats);
    this.output = new PluginOutputLog(this.log);
    this.hostBudget = new HostCallBudget(options.name, options.hostCalls, options.hostCallClock);
    // a refusal must reach the plugin before its own wait for the answer (rpc_timeout_ms) ends
    this.refusals = new RefusalPacer(Math.min(HOST_CALL_REFUSAL_DELAY_MS, Math.floor(options.rpcTimeoutMs / 2)));
    this.refusalLog = new RefusalLog((line) => this.log.warn(line));
    this.restarts = new Restarts(this.log, this.life, this.stats, () => this.spawn());
    this.now = options.idleClock ?? (() => performance.now());
  }

  get name(): string {
    return this.options.name;
  }

  get host(): RemoteHostBindings {
    return this.options.host;
  }

  get settings(): Readonly<Record<string, JsonValue>> {
    return this.options.settings;
  }

  get cacheQuotaBytes(): number | undefined {
    return this.options.cacheQuotaBytes;
  }

  descriptor = (): PluginDescriptor => this.desc ?? { name: this.options.name };

  /**
   * Not started: serve `descriptor` (cached from an earlier start) and start with the first call. For a plugin that
   * may stop when idle (on-demand/policy.ts); status says "idle".
   */
  startIdle(descriptor: PluginDescriptor): void {
    this.desc = descriptor;
    this.life.idle("idle (not started): descriptor from the cache; the first call starts it");
  }

  /** First start: resolves when ready, rejects (and leaves status failed) when the plugin cannot start. */
  async start(): Promise<void> {
    try {
      await this.spawn();
    } catch (error) {
      this.life.failed(errorMessage(error));
      throw error;
    }
  }

  private async spawn(): Promise<void> {
    const o = this.options;
    const started = performance.now();
    this.stats.servicesStarted.clear();
    const transport = this.startTransport(launchConfigFor(o, this.agent));
    this.transport = transport;
    this.killing = null;
    this.memory = memoryGuardFor(transport, o, (kill) => this.kill(transport, kill), () => this.calls.size > 0);
    const handshake = new Handshake(transport, o.name, o.readyTimeoutMs, (msg) => this.onMessage(msg, transport));
    transport.onRefused((kind, detail, count) => this.refused(kind, detail, count));
    transport.onMessage((text) => {
      const inbound = decodeWorkerMessage(text);
      if (!inbound.ok) this.refused(inbound.kind, inbound.detail);
      else if (handshake.active) handshake.feed(inbound.msg);
      else this.onMessage(inbound.msg, transport);
    });
    // a kill while starting (over its memory) is reported as such, not as an exit code
    const exitReason = (reason: string) => (this.killing ? `killed: ${this.killing.reason}` : reason);
    transport.onExit((code, reason) =>
      handshake.active ? handshake.exited(code, exitReason(reason)) : this.onExit(transport, reason),
    );
    try {
      this.desc = await handshake.done;
    } catch (error) {
      // a transport that never became ready is not "crashed": its exit must not schedule a restart
      if (this.transport === transport) this.transport = null;
      this.memory?.stop();
      transport.kill();
      throw error;
    }
    this.stats.readyMs = performance.now() - started;
    this.memory?.ready();
    this.life.ready();
    this.options.onAnnounced?.(this.desc);
    this.lastActivity = this.now();
    this.watchIdle();
  }

  /** While it runs, a plugin that may stop when idle is checked on the shared ticker (no timer of its own). */
  private watchIdle(): void {
    this.unwatchIdle?.();
    this.unwatchIdle = null;
    const idleStopMs = this.options.idleStopMs ?? 0;
    if (this.stopping || keepsRunning(this.descriptor(), idleStopMs) !== null) return;
    this.idleTicker ??= this.options.memoryTicker ?? new MemoryTicker(REMOTE_MEMORY_CHECK_MS);
    this.unwatchIdle = this.idleTicker.add(() => this.idleCheck(idleStopMs));
  }

  private idleCheck(idleStopMs: number): void {
    if (this.life.state !== "ready" || this.calls.size > 0 || this.calls.unacknowledged > 0) return;
    if (this.callbacks.size > 0 || this.hostBudget.status().inFlight > 0) return;
    if (this.now() - this.lastActivity < idleStopMs) return;
    this.parked = this.park(idleStopMs).finally(() => (this.parked = null));
  }

  /** Stop a plugin that had nothing to do for `idleStopMs`: as shutdown does, but the next call starts it again. */
  private async park(idleStopMs: number): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    this.unwatchIdle?.();
    this.unwatchIdle = null;
    this.parking = transport;
    // from here its exit is expected: onExit ignores a transport that is not the current one
    this.transport = null;
    this.memory?.stop();
    this.memory = null;
    this.life.idle(`idle: stopped after ${idleStopMs} ms without a call; the next call starts it`);
    const exited = new Promise<void>((r) => transport.onExit(() => r()));
    try {
      transport.send(encodeMessage({ type: "shutdown" }));
      await waitAtMost(exited, this.options.shutdownGraceMs ?? REMOTE_SHUTDOWN_GRACE_MS);
    } catch (error) {
      this.log.debug("idle stop not delivered: the worker is gone", { error: errorMessage(error) });
    }
    transport.kill();
    this.parking = null;
    this.output.flush();
    this.callbacks.clear();
    this.stats.servicesStarted.clear();
    this.log.debug(`stopped after ${idleStopMs} ms without a call`);
  }

  /** Start an idle plugin for a call; calls arriving meanwhile share the start. Bounded by ready_timeout_ms. */
  private wake(): Promise<void> {
    this.waking ??= (async () => {
      if (this.parked) await this.parked;
      if (this.life.state !== "idle" || this.stopping) return;
      this.life.starting("starting on demand");
      try {
        await this.spawn();
      } catch (error) {
        if (this.stopping) throw error;
        const failure = errorMessage(error);
        this.stats.lastError = failure;
        if (!this.wakeFailures.exited().restart) {
          this.life.failed(`gave up starting on demand after ${REMOTE_MAX_RESTARTS_PER_MINUTE} failures in a minute; last: ${failure}`);
        } else this.life.idle(`idle: the start on demand failed (${failure}); the next call tries again`, error as Error);
        throw error;
      }
    })().finally(() => (this.waking = null));
    return this.waking;
  }

  private refused(kind: RefusedKind, detail: RefusedDetail, count = 1): void {
    this.counters[kind] += count;
    this.output.refused(kind, detail, this.counters[kind], count);
    if (this.output.lastRefusal) this.stats.lastError = this.output.lastRefusal;
  }

  private onMessage(msg: WorkerToHostMessage, transport: HostTransport): void {
    if (msg.type !== "memory") this.lastActivity = this.now();
    switch (msg.type) {
      case "worker-rpc-result": {
        const slot = this.calls.take(msg.requestId);
        this.memory?.afterCall();
        if (!slot) {
          // the output log's budget bounds this warning too: a plugin may send any number of such results
          if (!this.calls.ack(msg.requestId)) this.output.line("warn", `result for an unknown call ${msg.requestId}`);
          else if (this.calls.unacknowledged === 0) this.life.cancelsSettled();
          return;
        }
        if (msg.ok) return slot.resolve(msg.payload ?? null);
        this.counters.failures += 1;
        const err = fromWireError(
          msg.error ?? { name: "Error", message: "failed" },
          `remote plugin ${this.options.name} ${slot.label}`,
        );
        this.stats.lastError = err.message;
        return slot.reject(err);
      }
      case "host-rpc": {
        this.counters.hostCalls += 1;
        const refusal = this.hostBudget.admit();
        if (refusal) {
          const answer = refusedHostRpc(msg, refusal);
          this.refusalLog.note(answer.error!.message);
          if (!this.refusals.hold(() => this.reply(transport, answer))) this.reply(transport, answer);
          return;
        }
        void handleHostRpc(this, msg).then((reply) => {
          this.hostBudget.release();
          this.reply(transport, reply);
        });
        return;
      }
      case "worker-action-callback":
        this.deliverCallback(msg.callbackId, msg.payload);
        return;
      case "log":
        this.output.line(msg.level, msg.message, msg.fields);
        return;
      case "memory":
        if (transport === this.transport) this.memory?.report(msg.heapBytes);
        return;
      case "service-started":
        this.stats.servicesStarted.add(msg.serviceType);
        this.log.debug(`service ${msg.serviceType} started`);
        return;
      default:
        this.refused("malformed", `unexpected ${msg.type} after init-complete`);
    }
  }

  /** Answer a host-rpc. A worker that is gone meanwhile is not an error. */
  private reply(transport: HostTransport, reply: HostRpcResultMessage): void {
    if (transport !== this.transport && transport !== this.parking) return;
    try {
      transport.send(encodeHostRpcReply(reply));
    } catch (error) {
      this.log.debug("host-rpc answer not delivered: the worker is gone", { error: errorMessage(error) });
    }
  }

  /** Delivers an actionCallback to the turn that made the call; late or unknown ids are logged. */
  deliverCallback(callbackId: string, content: unknown): boolean {
    const target = this.callbacks.get(callbackId);
    if (!target) {
      this.output.line("warn", "actionCallback for a finished or unknown call dropped", { callbackId });
      return false;
    }
    this.counters.callbacks += 1;
    target(callbackText(content));
    return true;
  }

  async call(surface: SurfaceKind, target: string, args: unknown, opts: RemoteCallOptions = {}): Promise<unknown> {
    const name = this.options.name;
    const label = `${surface} ${target}`;
    if (this.stopping || this.life.state === "stopped") throw remoteErrors.shutDown(name, label);
    if (this.life.state === "failed") throw remoteErrors.failed(name, this.stats.lastError);
    const timeoutMs = opts.timeoutMs ?? this.options.rpcTimeoutMs;
    if (this.life.state === "idle" || this.waking) await this.wake();
    this.lastActivity = this.now();
    // starting, restarting, or cancelling (the plugin may be hung): wait until it is ready again
    if (this.life.state !== "ready") await this.life.wait(timeoutMs);
    if (this.calls.size >= REMOTE_MAX_PENDING_CALLS) throw remoteErrors.busy(name, label);
    opts.signal?.throwIfAborted();
    const requestId = this.calls.nextId();
    const text = encodeMessage({ type: "worker-rpc", requestId, surface, target, args: args ?? null });
    const transport = this.transport!;
    this.counters.calls += 1;
    return fly(
      {
        plugin: name,
        calls: this.calls,
        transport,
        timeoutMs,
        graceMs: this.options.cancelGraceMs ?? REMOTE_CANCEL_GRACE_MS,
        signal: opts.signal,
        timedOut: (what, ms) => {
          this.counters.timeouts += 1;
          this.stats.lastError = `${what} timed out after ${ms} ms`;
        },
        cancelling: (event) => this.life.cancelling(event),
        hung: (why) => this.kill(transport, why),
      },
      requestId,
      label,
      text,
    );
  }

  ready(timeoutMs = this.options.readyTimeoutMs): Promise<void> {
    return this.life.wait(timeoutMs);
  }

  /** Kill the running worker/process for `why`; its exit fails the pending calls with that reason and restarts it. */
  private kill(transport: HostTransport, why: KillReason): void {
    if (transport !== this.transport || this.killing) return;
    this.killing = why;
    this.stats.lastError = `killed: ${why.reason}`;
    this.log.error(`killing the remote plugin: ${why.reason}`);
    if (!this.stopping) this.life.restarting(`killed: ${why.reason}`);
    transport.kill();
  }

  private onExit(transport: HostTransport, reason: string): void {
    if (transport !== this.transport) return;
    this.transport = null;
    this.memory?.stop();
    this.unwatchIdle?.();
    this.unwatchIdle = null;
    this.output.flush();
    this.callbacks.clear();
    const killed = this.killing;
    this.killing = null;
    const stderr = transport.stderrTail();
    for (const slot of this.calls.drain()) {
      this.counters.failures += 1;
      const why = { stopping: this.stopping, killed, reason, stderr };
      slot.reject(remoteErrors.gone(this.options.name, slot.label, why));
    }
    if (this.stopping) return;
    if (!killed) {
      this.stats.lastError = `crashed: ${reason}${stderr.length ? ` — ${stderr.slice(-3).join(" | ")}` : ""}`;
      this.log.error("remote plugin crashed", { reason, stderr: stderr.slice(-5) });
    }
    this.restarts.schedule();
  }

  status(): RemoteStatus {
    const { name, transport } = this.options;
    const budget = this.hostBudget.status();
    return this.stats.snapshot({
      name,
      transport,
      state: this.life.state,
      pid: this.transport?.pid ?? null,
      inFlight: this.calls.size,
      memoryBytes: this.memory?.usedBytes ?? null,
      maxMemoryMb: memoryCapOf(this.options),
      logDropped: this.output.droppedLogLines,
      hostRefused: budget.refused,
      lastHostRefusal: budget.lastRefusedAt === null ? null : new Date(budget.lastRefusedAt).toISOString(),
    });
  }

  noteEvent(event: string): void {
    this.stats.lastEvent = event;
  }

  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.restarts.cancel();
    this.unwatchIdle?.();
    this.unwatchIdle = null;
    if (this.parked) await this.parked;
    const grace = this.options.shutdownGraceMs ?? REMOTE_SHUTDOWN_GRACE_MS;
    await waitAtMost(this.calls.whenIdle(), grace);
    this.refusals.flush();
    this.refusalLog.flush();
    const transport = this.transport;
    // a plugin still starting (or restarting) has no calls and may not listen yet: it is killed, not asked to stop
    const listening = this.life.state === "ready" || this.life.state === "cancelling";
    if (transport && listening) {
      const exited = new Promise<void>((r) => transport.onExit(() => r()));
      try {
        transport.send(encodeMessage({ type: "shutdown" }));
      } catch (error) {
        this.log.debug("shutdown not delivered: the worker is gone", { error: errorMessage(error) });
      }
      await waitAtMost(exited, grace);
    }
    transport?.kill();
    this.memory?.stop();
    this.output.flush();
    // calls still running (the worker never answered nor exited): fail them instead of leaving them pending
    for (const slot of this.calls.drain()) {
      this.counters.failures += 1;
      slot.reject(remoteErrors.cutByShutdown(this.options.name, slot.label));
    }
    this.life.stopped();
  }
}
