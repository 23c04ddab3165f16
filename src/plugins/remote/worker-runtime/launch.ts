import type { JsonValue } from "./types.ts";
import type { AgentIdentity } from "../agent.ts";
import type { ChannelProblem, WorkerChannel } from "./channel.ts";
import type { HostLogLevel } from "./runtime-logger.ts";

/**
 * What the launcher (worker-entry.ts or child-main.ts) prepared before importing the plugin's entry file, so that
 * an entry calling `bootstrap(plugin)` itself uses the launcher's channel and settings. Kept on globalThis: it must
 * be shared even if the entry resolved its own copy of this module.
 */
export interface LaunchContext {
  channel: WorkerChannel;
  initConfig: Record<string, JsonValue>;
  rpcTimeoutMs: number;
  agent?: AgentIdentity;
  logLevel?: HostLogLevel;
  onShutdown: () => void;
  /** Before each call the dispatcher runs (the Worker's memory reports speed up while it serves). */
  beforeCall?: () => void;
  /** After each call the dispatcher answered (the Worker's memory check). */
  afterCall?: () => void;
  setProblemSink?: (sink: (problem: ChannelProblem) => void) => void;
  bootstrapped: boolean;
}

const KEY = Symbol.for("prx.remote.launch");
const FLAG = Symbol.for("prx.remote.bootstrapped");
type Slots = { [KEY]?: LaunchContext; [FLAG]?: boolean };

export function setLaunchContext(context: LaunchContext): void {
  (globalThis as Slots)[KEY] = context;
}

export function getLaunchContext(): LaunchContext | undefined {
  return (globalThis as Slots)[KEY];
}

export function markBootstrapped(): void {
  (globalThis as Slots)[FLAG] = true;
}

export function wasBootstrapped(): boolean {
  return (globalThis as Slots)[FLAG] === true;
}
