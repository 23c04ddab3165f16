import { addAbortWaiter, removeAbortWaiter, type AbortWaiter } from "../core/abort-waiters.ts";
import { errorMessage, isPrxError } from "../core/errors.ts";
import { parseJsonBounded } from "../core/json/index.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import type { ToolSpec } from "../providers/types.ts";
import { TOOL_MAX_ARGUMENT_BYTES, TOOL_MAX_OUTPUT_BYTES } from "./limits.ts";
import { capResult, fail } from "./result.ts";
import type { Tool, ToolContext, ToolResult, ToolSource } from "./types.ts";

type ResultCheck = typeof import("./result-check.ts").checkedResult;
type CompileArgsCheck = typeof import("./args-check.ts").compileArgsCheck;
type ArgsCheck = import("./args-check.ts").ArgsCheck;

/**
 * The check of what a tool returns (zod) loads with the first call: a start that calls no tool never loads zod
 * (a kept start-up trick, src/boot/tricks.ts "tools-at-rest").
 */
let resultCheck: Promise<ResultCheck> | undefined;
const loadResultCheck = (): Promise<ResultCheck> => (resultCheck ??= import("./result-check.ts").then((m) => m.checkedResult));

/** The JSON Schema validator (ajv) loads with the first call of a plugin or MCP tool; built-ins check with zod. */
let argsCompiler: Promise<CompileArgsCheck> | undefined;
const loadArgsCompiler = (): Promise<CompileArgsCheck> => (argsCompiler ??= import("./args-check.ts").then((m) => m.compileArgsCheck));

export interface ToolRegistryOptions {
  builtins: Tool[];
  /** Built-in names hidden from the model and refused (config.tools.disabled); a getter follows config reloads. */
  disabled?: readonly string[] | (() => readonly string[]);
  logger?: Logger;
  /** Defaults to TOOL_MAX_OUTPUT_BYTES. */
  maxOutputBytes?: number;
}

export interface ToolCounts {
  calls: number;
  errors: number;
}

/**
 * Built-in tools plus dynamic sources (plugin generations). Sources are asked on every specs()/call(), never
 * cached, so a reload is seen by the next call. On a name clash built-ins win, then the earlier source.
 */
export class ToolRegistry {
  private readonly builtins = new Map<string, Tool>();
  private readonly sources: ToolSource[];
  private readonly disabled: () => readonly string[];
  private readonly logger: Logger;
  private readonly maxOutputBytes: number;
  private readonly warned = new Set<string>();
  private readonly counters: Map<string, ToolCounts>;
  /** The last specs() answer and what it was built from (compared by identity). */
  private memo: { disabled: readonly string[]; lists: ToolSpec[][]; specs: ToolSpec[] } | null = null;
  /**
   * Each source tool's compiled argument check, keyed by its spec: a source answers with the same spec objects for
   * a whole plugin generation (or MCP tool list), so a schema is compiled once per generation and freed with it.
   */
  private readonly argsChecks = new WeakMap<ToolSpec, ArgsCheck>();

  constructor(options: ToolRegistryOptions, shared?: { sources: ToolSource[]; counters: Map<string, ToolCounts> }) {
    this.sources = shared?.sources ?? [];
    this.counters = shared?.counters ?? new Map();
    for (const tool of options.builtins) this.builtins.set(tool.spec.name, tool);
    const disabled = options.disabled ?? [];
    this.disabled = typeof disabled === "function" ? disabled : () => disabled;
    this.logger = options.logger ?? createLogger("tools");
    this.maxOutputBytes = options.maxOutputBytes ?? TOOL_MAX_OUTPUT_BYTES;
  }

  /**
   * A registry of other built-ins (a new configuration's) sharing this one's sources and counters: a source added to
   * either is in both. A turn keeps the registry it started with; the next turn takes the new one.
   */
  next(options: ToolRegistryOptions): ToolRegistry {
    return new ToolRegistry(options, { sources: this.sources, counters: this.counters });
  }

  /** Add a source, replacing any source with the same id. */
  addSource(source: ToolSource): void {
    const index = this.sources.findIndex((existing) => existing.id === source.id);
    if (index >= 0) this.sources[index] = source;
    else this.sources.push(source);
  }

  removeSource(id: string): boolean {
    const index = this.sources.findIndex((source) => source.id === id);
    if (index < 0) return false;
    this.sources.splice(index, 1);
    return true;
  }

  /**
   * What the model is offered: built-ins that are neither disabled nor unavailable (they would refuse every call
   * under the current config), then each source's tools that do not clash. The same array
   * (do not mutate it) while the disabled list and every source's list are the same arrays as last time: sources
   * answer with one array per plugin generation, so a turn usually rebuilds nothing.
   */
  specs(): ToolSpec[] {
    const disabledNames = this.disabled();
    const lists = this.sources.map((source) => this.listSource(source));
    const memo = this.memo;
    if (memo && memo.disabled === disabledNames && sameItems(memo.lists, lists)) return memo.specs;
    const disabled = new Set(disabledNames);
    const specs: ToolSpec[] = [];
    const taken = new Set<string>(this.builtins.keys());
    for (const [name, tool] of this.builtins) if (!disabled.has(name) && tool.unavailable === undefined) specs.push(tool.spec);
    for (let i = 0; i < this.sources.length; i++) {
      const source = this.sources[i]!;
      for (const spec of lists[i]!) {
        if (taken.has(spec.name)) {
          this.warnClash(source.id, spec.name);
          continue;
        }
        taken.add(spec.name);
        specs.push(spec);
      }
    }
    this.memo = { disabled: disabledNames, lists, specs };
    return specs;
  }

  names(): string[] {
    return this.specs().map((spec) => spec.name);
  }

  /** Built-in tools not offered to the model because they would refuse every call, with the reason. */
  unavailable(): Array<{ name: string; reason: string }> {
    const disabled = new Set(this.disabled());
    const out: Array<{ name: string; reason: string }> = [];
    for (const [name, tool] of this.builtins)
      if (!disabled.has(name) && tool.unavailable !== undefined) out.push({ name, reason: tool.unavailable });
    return out;
  }

  /** The tool a call by this name would run right now, if any (an unavailable built-in answers with its refusal). */
  resolve(name: string): Tool | undefined {
    const builtin = this.builtins.get(name);
    if (builtin) return this.disabled().includes(name) ? undefined : builtin;
    for (const source of this.sources) {
      const tool = this.getFromSource(source, name);
      if (tool) return tool;
    }
    return undefined;
  }

  /** Run one tool call from the model. Never throws: every failure is an error result the model can read. */
  async call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult> {
    const tool = this.resolve(name);
    if (!tool) {
      const available = this.names();
      return fail(`unknown tool "${name}"; available tools: ${available.length > 0 ? available.join(", ") : "(none)"}`);
    }
    const counter = this.counter(name);
    counter.calls++;
    const result = capResult(await this.execute(tool, name, rawArguments, context, loadResultCheck()), this.maxOutputBytes);
    if (!result.success) counter.errors++;
    return result;
  }

  /** Per-tool call and error counters since start, for metrics. */
  counts(): Record<string, ToolCounts> {
    const out: Record<string, ToolCounts> = {};
    for (const [name, counts] of this.counters) out[name] = { ...counts };
    return out;
  }

  /**
   * The tool's checked result. A tool whose promise is already settled when it returns (it answered synchronously)
   * cannot be aborted any more: its result is taken as it is, with no abort listener. A pending one races the turn's
   * signal through one listener per signal (shared by every call waiting on it), not one per call.
   */
  private execute(tool: Tool, name: string, rawArguments: string, context: ToolContext, check: Promise<ResultCheck>): ToolResult | Promise<ToolResult> {
    const parsed = parseArguments(name, rawArguments);
    if ("error" in parsed) return fail(parsed.error);
    // built-ins parse their arguments with their own zod schema; every other tool's declared schema is checked here
    if (this.builtins.get(name) === tool) return this.run(tool, name, parsed.args, context, check);
    const compiler = loadArgsCompiler();
    if (Bun.peek.status(compiler) !== "fulfilled") {
      return compiler.then(() => this.execute(tool, name, rawArguments, context, check));
    }
    const violation = this.argsCheckOf(tool, Bun.peek(compiler) as CompileArgsCheck)(parsed.args);
    if (violation !== null) return fail(violation);
    return this.run(tool, name, parsed.args, context, check);
  }

  private argsCheckOf(tool: Tool, compile: CompileArgsCheck): ArgsCheck {
    let argsCheck = this.argsChecks.get(tool.spec);
    if (!argsCheck) this.argsChecks.set(tool.spec, (argsCheck = compile(tool.spec.name, tool.spec.parameters)));
    return argsCheck;
  }

  private run(tool: Tool, name: string, args: Record<string, unknown>, context: ToolContext, check: Promise<ResultCheck>): ToolResult | Promise<ToolResult> {
    const { signal } = context;
    if (signal.aborted) return fail(`tool ${name} was not run: the turn was aborted (${abortReason(signal)})`);
    let pending: Promise<ToolResult>;
    try {
      const returned: unknown = tool.execute(args, context);
      // a thenable or a plain value (a tool breaking its type) is read as `await` would read it
      pending = returned instanceof Promise ? returned : Promise.resolve(returned as ToolResult);
    } catch (error) {
      return fail(`tool ${name} failed: ${errorMessage(error)}`);
    }
    if (Bun.peek.status(pending) === "fulfilled") return checkedWith(check, name, Bun.peek(pending));
    return settledOrAborted(pending, signal, name, check);
  }

  private counter(name: string): ToolCounts {
    let counter = this.counters.get(name);
    if (!counter) this.counters.set(name, (counter = { calls: 0, errors: 0 }));
    return counter;
  }

  private listSource(source: ToolSource): ToolSpec[] {
    try {
      return source.list();
    } catch (error) {
      this.logger.warn(`tool source ${source.id} failed to list its tools; skipping it`, {
        error: errorMessage(error),
      });
      return [];
    }
  }

  private getFromSource(source: ToolSource, name: string): Tool | undefined {
    try {
      return source.get(name);
    } catch (error) {
      this.logger.warn(`tool source ${source.id} failed to resolve ${name}; skipping it`, {
        error: errorMessage(error),
      });
      return undefined;
    }
  }

  private warnClash(sourceId: string, name: string): void {
    const key = `${sourceId}\u0000${name}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(`tool "${name}" from ${sourceId} is hidden: the name is already taken`, {
      hint: "rename the plugin tool; built-in tools and earlier plugins keep their names",
    });
  }
}

/** The tool's result, or an "aborted" result as soon as the signal aborts (the tool's late answer is then ignored). */
/** The value checked now, or once the check has loaded (the first call). */
function checkedWith(check: Promise<ResultCheck>, name: string, value: unknown): ToolResult | Promise<ToolResult> {
  return Bun.peek.status(check) === "fulfilled" ? (Bun.peek(check) as ResultCheck)(name, value) : check.then((c) => c(name, value));
}

function settledOrAborted(pending: Promise<ToolResult>, signal: AbortSignal, name: string, check: Promise<ResultCheck>): Promise<ToolResult> {
  return new Promise((resolve) => {
    const onAbort: AbortWaiter = () => resolve(fail(`tool ${name} was aborted: ${abortReason(signal)}`));
    addAbortWaiter(signal, onAbort);
    pending.then(
      (value) => {
        removeAbortWaiter(signal, onAbort);
        resolve(checkedWith(check, name, value));
      },
      (error: unknown) => {
        removeAbortWaiter(signal, onAbort);
        resolve(fail(`tool ${name} failed: ${errorMessage(error)}`));
      },
    );
  });
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? "aborted" : String(reason);
}

/** The model's argument text as an object: "" means {}, anything else must be a JSON object. */
export function parseArguments(name: string, raw: string): { args: Record<string, unknown> } | { error: string } {
  // text that starts with "{" is not blank: only other text is trimmed to find out
  if (raw.charCodeAt(0) !== 0x7b && raw.trim() === "") return { args: {} };
  // a JS string takes at most 3 UTF-8 bytes per UTF-16 unit: short text is not measured
  if (raw.length > TOOL_MAX_ARGUMENT_BYTES || (raw.length * 3 > TOOL_MAX_ARGUMENT_BYTES && Buffer.byteLength(raw, "utf8") > TOOL_MAX_ARGUMENT_BYTES)) {
    return { error: `arguments for tool ${name} exceed ${TOOL_MAX_ARGUMENT_BYTES} bytes; send less data per call` };
  }
  let value: unknown;
  try {
    value = parseJsonBounded(raw, `arguments for tool ${name}`);
  } catch (error) {
    if (isPrxError(error)) return { error: `${error.message}; ${error.hint}` };
    return { error: `invalid JSON arguments for tool ${name}: ${errorMessage(error)}; send one JSON object` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return { error: `arguments for tool ${name} must be a JSON object, got ${kind}` };
  }
  return { args: value as Record<string, unknown> };
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
