import { PrxError, errorMessage } from "../../core/errors.ts";
import { createLogger, getLogLevel, type Logger } from "../../core/logger.ts";
import type { AgentIdentity } from "./agent.ts";
import { defaultAgentIdentity } from "./agent-default.ts";
import { encodeMessage } from "./codec.ts";
import { decodeWorkerMessage, encodeHostRpcReply } from "./inbound.ts";
import { CallTable, callbackText } from "./calls.ts";
import { handleHostRpc, type CallbackRegistry } from "./host-rpc.ts";
import {
  REMOTE_CANCEL_GRACE_MS,
  REMOTE_MAX_PENDING_CALLS,
  REMOTE_MAX_RESTARTS_PER_MINUTE,
  REMOTE_SHUTDOWN_GRACE_MS,
} from "./limits.ts";
import { ReadyGate, RestartPolicy, within } from "./restart.ts";
import { SupervisorStats } from "./stats.ts";
import { remoteErrors } from "./failures.ts";
import { Handshake } from "./handshake.ts";
import type { HostRpcResultMessage, PluginDescriptor, SurfaceKind, WorkerToHostMessage } from "./protocol.ts";
import { startProcessTransport, startWorkerTransport, type HostTransport } from "./transport.ts";
import type { RemoteCallOptions, RemoteState, RemoteStatus, StartRemotePluginOptions } from "./types.ts";
import { fromWireError } from "./wire-error.ts";
import type { LaunchConfig } from "./worker-runtime/launcher.ts";

/** Spawns one remote plugin, keeps it alive (restarts with backoff), and correlates calls in both directions. */
export class RemoteSupervisor {
  readonly log: Logger;
  private transport: HostTransport | null = null;
  private state: RemoteState = "starting";
  private desc: PluginDescriptor | null = null;
  private readonly calls = new CallTable();
  private readonly gate = new ReadyGate();
  private readonly restarts = new RestartPolicy();
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private stopping = false;
  readonly callbacks: CallbackRegistry = new Map();
  private readonly stats = new SupervisorStats();
  private readonly counters = this.stats.counters;
  /** Who the agent is for this plugin (runtime.agentId, character, ...). */
  readonly agent: AgentIdentity;

  constructor(
    readonly options: StartRemotePluginOptions,
    /** How a Worker/subprocess is started (injectable for in-process measurements). */
    private readonly startTransport: (config: LaunchConfig) => HostTransport = (config) =>
      options.transport === "process" ? startProcessTransport(config) : startWorkerTransport(config),
  ) {
    this.log = createLogger(`remote.${options.name}`);
    this.agent = options.agent ?? defaultAgentIdentity();
  }

  descriptor(): PluginDescriptor {
    return this.desc ?? { name: this.options.name };
  }

  /** First start: resolves when ready, rejects (and leaves status error) when the plugin cannot start. */
  async start(): Promise<void> {
    try {
      await this.spawn();
    } catch (error) {
      this.state = "error";
      this.stats.lastError = errorMessage(error);
      throw error;
    }
  }

  private async spawn(): Promise<void> {
    const o = this.options;
    const started = performance.now();
    this.stats.servicesStarted.clear();
    const transport = this.startTransport({
      name: o.name,
      entry: o.entryPath,
      settings: o.settings,
      rpcTimeoutMs: o.rpcTimeoutMs,
      agent: this.agent,
      logLevel: getLogLevel(),
    });
    this.transport = transport;
    const handshake = new Handshake(transport, o.name, o.readyTimeoutMs, (msg) => this.onMessage(msg, transport));
    transport.onRefused((kind, detail) => this.refused(kind, detail));
    transport.onMessage((text) => {
      const inbound = decodeWorkerMessage(text);
      if (!inbound.ok) this.refused(inbound.kind, inbound.detail);
      else if (handshake.active) handshake.feed(inbound.msg);
      else this.onMessage(inbound.msg, transport);
    });
    transport.onExit((code, reason) =>
      handshake.active ? handshake.exited(code, reason) : this.onExit(transport, reason),
    );
    try {
      this.desc = await handshake.done;
    } catch (error) {
      // a transport that never became ready is not "crashed": its exit must not schedule a restart
      if (this.transport === transport) this.transport = null;
      transport.kill();
      throw error;
    }
    this.state = "ready";
    this.stats.readyMs = performance.now() - started;
    this.stats.lastEvent = "ready";
    this.gate.open();
  }

  private refused(kind: "malformed" | "oversize", detail: string): void {
    this.counters[kind] += 1;
    this.stats.lastError = `refused ${kind} message from plugin: ${detail}`;
    this.log.error(`refused ${kind} message from remote plugin`, { detail, count: this.counters[kind] });
  }

  private onMessage(msg: WorkerToHostMessage, transport: HostTransport): void {
    switch (msg.type) {
      case "worker-rpc-result": {
        const slot = this.calls.take(msg.requestId);
        if (!slot) {
          if (!this.calls.ack(msg.requestId)) this.log.warn("result for an unknown call", { requestId: msg.requestId });
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
      case "host-rpc":
        this.counters.hostCalls += 1;
        void handleHostRpc(this, msg).then((reply) => this.reply(transport, reply));
        return;
      case "worker-action-callback":
        this.deliverCallback(msg.callbackId, msg.payload);
        return;
      case "log":
        this.log[msg.level](msg.message, msg.fields);
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
    if (transport !== this.transport) return;
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
      this.log.warn("actionCallback for a finished or unknown call dropped", { callbackId });
      return false;
    }
    this.counters.callbacks += 1;
    target(callbackText(content));
    return true;
  }

  async call(surface: SurfaceKind, target: string, args: unknown, opts: RemoteCallOptions = {}): Promise<unknown> {
    const name = this.options.name;
    const label = `${surface} ${target}`;
    if (this.stopping || this.state === "stopped") throw remoteErrors.shutDown(name, label);
    if (this.state === "error") throw remoteErrors.errorState(name, this.stats.lastError);
    const timeoutMs = opts.timeoutMs ?? this.options.rpcTimeoutMs;
    if (this.state !== "ready") await this.ready(timeoutMs);
    if (this.calls.size >= REMOTE_MAX_PENDING_CALLS) throw remoteErrors.busy(name, label);
    opts.signal?.throwIfAborted();
    const requestId = this.calls.nextId();
    const text = encodeMessage({ type: "worker-rpc", requestId, surface, target, args: args ?? null });
    const transport = this.transport!;
    this.counters.calls += 1;
    return new Promise((resolve, reject) => {
      const cancel = (reason: string) => {
        this.calls.take(requestId);
        transport.send(encodeMessage({ type: "cancel", requestId, reason }));
        this.calls.expectAck(requestId, REMOTE_CANCEL_GRACE_MS, () => {
          this.log.error("plugin did not acknowledge cancel: treating it as hung and restarting", { requestId });
          this.stats.lastError = `hung in ${label}: no answer to cancel within ${REMOTE_CANCEL_GRACE_MS} ms`;
          transport.kill();
        });
      };
      const onAbort = () => {
        cancel("aborted by caller");
        reject(remoteErrors.aborted(name, label));
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => {
        this.counters.timeouts += 1;
        this.stats.lastError = `${label} timed out after ${timeoutMs} ms`;
        cancel(`timed out after ${timeoutMs} ms`);
        reject(remoteErrors.timedOut(name, label, timeoutMs));
      }, timeoutMs);
      this.calls.add(requestId, {
        label,
        resolve,
        reject,
        timer,
        cleanup: () => opts.signal?.removeEventListener("abort", onAbort),
      });
      transport.send(text);
    });
  }

  ready(timeoutMs = this.options.readyTimeoutMs): Promise<void> {
    if (this.state === "ready") return Promise.resolve();
    if (this.state === "error" || this.state === "stopped") {
      return Promise.reject(
        new PrxError("REMOTE_CRASHED", `remote plugin ${this.options.name} is ${this.state}: ${this.stats.lastError ?? ""}`),
      );
    }
    return this.gate.wait(timeoutMs, () => remoteErrors.notReady(this.options.name, timeoutMs));
  }

  private onExit(transport: HostTransport, reason: string): void {
    if (transport !== this.transport) return;
    this.callbacks.clear();
    const stderr = transport.stderrTail();
    for (const slot of this.calls.drain()) {
      this.counters.failures += 1;
      slot.reject(
        this.stopping
          ? remoteErrors.cutByShutdown(this.options.name, slot.label)
          : remoteErrors.crashed(this.options.name, slot.label, reason, stderr),
      );
    }
    if (this.stopping) return;
    this.stats.lastError = `crashed: ${reason}${stderr.length ? ` — ${stderr.slice(-3).join(" | ")}` : ""}`;
    this.log.error("remote plugin crashed", { reason, stderr: stderr.slice(-5) });
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = this.restarts.nextDelay();
    if (delay === null) {
      this.state = "error";
      this.stats.lastError = `gave up after ${REMOTE_MAX_RESTARTS_PER_MINUTE} restarts in a minute; last: ${this.stats.lastError}`;
      this.log.error(this.stats.lastError);
      this.gate.fail(new PrxError("REMOTE_CRASHED", `remote plugin ${this.options.name}: ${this.stats.lastError}`));
      return;
    }
    this.state = "restarting";
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.counters.restarts += 1;
      this.spawn().catch((error) => {
        this.stats.lastError = errorMessage(error);
        this.log.error("restart failed", { error: this.stats.lastError });
        if (!this.stopping) this.scheduleRestart();
      });
    }, delay);
  }

  status(): RemoteStatus {
    const { name, transport } = this.options;
    const live = { name, transport, state: this.state, pid: this.transport?.pid ?? null, inFlight: this.calls.size };
    return this.stats.snapshot(live);
  }

  noteEvent(event: string): void {
    this.stats.lastEvent = event;
  }

  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const grace = this.options.shutdownGraceMs ?? REMOTE_SHUTDOWN_GRACE_MS;
    await within(this.calls.whenIdle(), grace);
    const transport = this.transport;
    if (transport && this.state !== "error") {
      const exited = new Promise<void>((r) => transport.onExit(() => r()));
      try {
        transport.send(encodeMessage({ type: "shutdown" }));
      } catch {
        // already gone
      }
      await within(exited, grace);
    }
    transport?.kill();
    // calls still running (the worker never answered nor exited): fail them instead of leaving them pending
    for (const slot of this.calls.drain()) {
      this.counters.failures += 1;
      slot.reject(remoteErrors.cutByShutdown(this.options.name, slot.label));
    }
    this.state = "stopped";
    this.gate.fail(new PrxError("PLUGIN_NOT_FOUND", `remote plugin ${this.options.name} was shut down`));
  }
}
