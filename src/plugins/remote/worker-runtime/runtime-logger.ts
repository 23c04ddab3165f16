import { REMOTE_PLUGIN_LOG_MAX_CHARS } from "../limits.ts";
import type { LogCall, RuntimeLogger } from "./runtime-types.ts";

/** Levels the host's logger knows (PRX_LOG), lowest first. */
export const HostLogLevels = ["trace", "debug", "info", "warn", "error", "silent"] as const;
export type HostLogLevel = (typeof HostLogLevels)[number];

type WireLevel = "debug" | "info" | "warn" | "error";
/** One `log` protocol message. */
export interface LogLine {
  type: "log";
  level: WireLevel;
  message: string;
  fields?: Record<string, unknown>;
}

const METHODS = {
  trace: "trace",
  debug: "debug",
  info: "info",
  success: "info",
  progress: "info",
  log: "info",
  warn: "warn",
  error: "error",
  fatal: "error",
} as const satisfies Record<string, Exclude<HostLogLevel, "silent">>;

const rank = (level: HostLogLevel) => HostLogLevels.indexOf(level);

/** JSON.stringify that survives cycles, BigInt, Errors and functions (log arguments are arbitrary values). */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "function") return `[function ${v.name || "anonymous"}]`;
      if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack };
      if (v && typeof v === "object") {
        if (seen.has(v)) return "[circular]";
        seen.add(v);
      }
      return v;
    }) ?? String(value)
  );
}

/** Cut a text longer than REMOTE_PLUGIN_LOG_MAX_CHARS, saying how much was cut. */
export function clipLogText(text: string): string {
  if (text.length <= REMOTE_PLUGIN_LOG_MAX_CHARS) return text;
  return `${text.slice(0, REMOTE_PLUGIN_LOG_MAX_CHARS)}... [${text.length - REMOTE_PLUGIN_LOG_MAX_CHARS} chars cut]`;
}

const asText = (v: unknown) => (typeof v === "string" ? v : v instanceof Error ? v.message : safeJson(v));

/**
 * pino-style arguments -> message and fields: `("text", ...more)`, `({ error }, "text")`, `(error)`, `({ a: 1 })`.
 * Fields whose JSON is longer than the cap are replaced by `{ truncated: "<the JSON, cut>" }`.
 */
export function formatLogCall(args: unknown[], bindings: Record<string, unknown>): Omit<LogLine, "type" | "level"> {
  const [first, ...rest] = args;
  let message: string;
  let fields: Record<string, unknown> = { ...bindings };
  if (first instanceof Error) {
    message = [first.message, ...rest.map(asText)].join(" ");
    fields.error = { name: first.name, message: first.message, stack: first.stack };
  } else if (first && typeof first === "object") {
    message = rest.map(asText).join(" ");
    fields = { ...fields, ...(first as Record<string, unknown>) };
  } else {
    message = args.map(asText).join(" ");
  }
  const out: Omit<LogLine, "type" | "level"> = { message: clipLogText(message) };
  if (Object.keys(fields).length > 0) {
    const json = safeJson(fields);
    out.fields = json.length <= REMOTE_PLUGIN_LOG_MAX_CHARS ? (JSON.parse(json) as Record<string, unknown>) : { truncated: clipLogText(json) };
  }
  return out;
}

/**
 * `runtime.logger`: elizaOS's Logger shape. Lines at or above the host's level go to the host as `log` messages and
 * appear in the host's log under `[remote.<plugin>]`; the rest are dropped here, before crossing the boundary.
 */
export function createRuntimeLogger(
  send: (line: LogLine) => void,
  threshold: HostLogLevel,
  bindings: Record<string, unknown> = {},
  /** Whether one more line may go out now (the plugin's output budget); checked before the line is formatted. */
  admit: () => boolean = () => true,
): RuntimeLogger {
  const call =
    (method: keyof typeof METHODS): LogCall =>
    (...args: unknown[]) => {
      const level = METHODS[method];
      if (rank(level) < rank(threshold) || !admit()) return;
      const wire: WireLevel = level === "trace" ? "debug" : level;
      send({ type: "log", level: wire, ...formatLogCall(args, bindings) });
    };
  return Object.freeze({
    level: threshold,
    trace: call("trace"),
    debug: call("debug"),
    info: call("info"),
    success: call("success"),
    progress: call("progress"),
    log: call("log"),
    warn: call("warn"),
    error: call("error"),
    fatal: call("fatal"),
    clear() {
      // the host's log is a stream of lines; there is nothing to clear
    },
    child: (more: Record<string, unknown>) => createRuntimeLogger(send, threshold, { ...bindings, ...more }, admit),
  });
}
