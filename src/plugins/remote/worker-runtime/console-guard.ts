import { REMOTE_PLUGIN_LOG_MAX_CHARS } from "../limits.ts";
import { OutputBudget, PLUGIN_OUTPUT_LIMITS, type BudgetLimits } from "../output-budget.ts";

type WriteCallback = (error?: Error | null) => void;
type Write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => boolean;

/** A console line or a raw write as it is written: cut at REMOTE_PLUGIN_LOG_MAX_CHARS, ending in a newline. */
export function consoleText(text: string, newline: boolean): string {
  const cut =
    text.length > REMOTE_PLUGIN_LOG_MAX_CHARS
      ? `${text.slice(0, REMOTE_PLUGIN_LOG_MAX_CHARS)}... [${text.length - REMOTE_PLUGIN_LOG_MAX_CHARS} chars cut]\n`
      : text;
  return newline && !cut.endsWith("\n") ? `${cut}\n` : cut;
}

let utilFormat: ((...args: unknown[]) => string) | null = null;

/**
 * console.log's formatting: node:util's format when the first argument may hold a placeholder (loaded then, as it
 * costs a Worker ~2 ms to load), else the arguments as Bun prints them, joined by spaces.
 */
export function formatConsoleArgs(args: unknown[]): string {
  if (typeof args[0] === "string" && args[0].includes("%") && args.length > 1) {
    utilFormat ??= (require("node:util") as typeof import("node:util")).format;
    return utilFormat(...args);
  }
  return args.map((a) => (typeof a === "string" ? a : Bun.inspect(a))).join(" ");
}

function chunkText(chunk: unknown): string {
  if (typeof chunk === "string") return chunk;
  if (chunk instanceof Uint8Array) {
    const head = chunk.subarray(0, REMOTE_PLUGIN_LOG_MAX_CHARS + 1);
    const text = new TextDecoder().decode(head);
    return chunk.length > head.length ? `${text}... [${chunk.length - head.length} bytes cut]\n` : text;
  }
  return String(chunk);
}

/**
 * Plugin output never goes to stdout: in stdio mode stdout carries only protocol lines, in a Worker it is the host
 * command's own output. `console.*` and stray `process.stdout.write` / `process.stderr.write` calls of the plugin go
 * to stderr through one budget (PLUGIN_OUTPUT_LIMITS): lines over it are dropped and counted before they are even
 * formatted, and one line per interval says how many were dropped. With `prefixed` (a Worker, whose stderr is the
 * host process's own) every line starts with `[<plugin>] `, so it is told apart from the host's and other plugins'.
 * Returns the budget (its counters).
 */
export function guardConsole(
  plugin: string,
  limits: BudgetLimits = PLUGIN_OUTPUT_LIMITS,
  rawWrite: (text: string) => void = stderrWriter(),
  prefixed = false,
): OutputBudget {
  const budget = new OutputBudget(limits, (dropped) =>
    rawWrite(
      `[prx remote plugin ${plugin}] ${dropped} console lines dropped: over ${limits.lines} lines or ` +
        `${limits.bytes} bytes in ${limits.intervalMs} ms\n`,
    ),
  );
  const prefix = `[${plugin}] `;
  let lineStart = true;
  const line = (text: string, newline: boolean) => {
    let out = consoleText(text, newline);
    if (prefixed) {
      // each line of the text starts with the prefix; a raw write ending mid-line leaves the next one to go on
      const lines = out.split("\n");
      out = lines.map((part, i) => ((i > 0 || lineStart) && (part !== "" || i < lines.length - 1) ? prefix + part : part)).join("\n");
      lineStart = out.endsWith("\n");
    }
    budget.charge(out.length);
    rawWrite(out);
  };
  const log = (...args: unknown[]) => {
    if (budget.take()) line(formatConsoleArgs(args), true);
  };
  for (const method of ["log", "info", "debug", "trace", "dir", "table", "warn", "error"] as const) {
    (console as unknown as Record<string, unknown>)[method] = log;
  }
  const write: Write = (chunk, encodingOrCallback, callback) => {
    if (budget.take()) line(chunkText(chunk), false);
    const done = (typeof encodingOrCallback === "function" ? encodingOrCallback : callback) as
      | WriteCallback
      | undefined;
    if (done) queueMicrotask(() => done(null));
    return true;
  };
  process.stdout.write = write as typeof process.stdout.write;
  process.stderr.write = write as typeof process.stderr.write;
  return budget;
}

/** The real stderr, taken before the plugin (or this module) replaces process.stderr.write. */
function stderrWriter(): (text: string) => void {
  const original = process.stderr.write.bind(process.stderr);
  return (text) => void original(text);
}
