import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { bridgeEventName } from "../events/lifecycle.ts";
import { compilePattern } from "../events/patterns.ts";
import type { TopicMatcher } from "../events/patterns.ts";
import { HOOK_PAYLOAD_MAX_BYTES, HOOK_TIMEOUT_DEFAULT_MS, HOOKS_FILE_MAX_BYTES } from "./limits.ts";
import { runHookAction } from "./runner.ts";
import { describeIssues, HookActionSchema, HooksFileSchema, normalizeEventName } from "./schema.ts";
import type { HookAction, HooksFile } from "./schema.ts";
import { fileStamp } from "../../core/file-stamp.ts";
import { readHooksFile, writeHooksFileAtomic } from "./store.ts";
import type { HookDispatchResult, HookRunResult, HooksReloadResult, HooksSnapshot, HooksStatus } from "./types.ts";

interface Loaded {
  hash: string | null;
  doc: HooksFile;
  routes: { key: string; matches: TopicMatcher; actions: HookAction[] }[];
  actions: number;
}

export interface HooksManagerOptions {
  /** Path of hooks.json (Workspace.hooksPath). */
  path: string;
  /** Base for relative `cwd` values and the default cwd (default: the directory of hooks.json). */
  root?: string;
  /** Where payload files are created (default: the OS temp directory). */
  tmpDir?: string;
  /** Environment hooks inherit (default: prx's own, minus BUN_BE_BUN). */
  env?: Record<string, string | undefined>;
  logger?: Logger;
}

export interface EditOptions {
  /** Refuse the edit (CONFLICT) unless the hooks in force have this hash (null = no file). */
  ifMatch?: string | null;
}

const EMPTY: HooksFile = { hooks: {} };

/**
 * Native command hooks from `<workspace>/hooks.json`. Reload is content-addressed: the sha256 of the file decides
 * whether anything changed, and a candidate is parsed and validated whole before one swap; an invalid candidate
 * keeps the hooks in force and the reason is reported (status, log, return value). dispatch() notices edits by
 * a stat of the file; reload() always reads and hashes it.
 */
export class HooksManager {
  private current: Loaded = compile(null, EMPTY);
  private seenStamp: string | null = null;
  private rejected: { hash: string | null; error: string } | null = null;
  private lastReload: HooksStatus["lastReload"] = null;
  private counters = { dispatched: 0, runs: 0, failures: 0 };
  private lastError: HooksStatus["lastError"] = null;
  private readonly changeListeners = new Set<() => void>();
  private readonly logger: Logger;
  private readonly root: string;
  private readonly tmpDir: string;
  private readonly env: Record<string, string | undefined>;

  constructor(private readonly options: HooksManagerOptions) {
    this.logger = options.logger ?? createLogger("plugins.hooks");
    this.root = options.root ?? dirname(options.path);
    this.tmpDir = options.tmpDir ?? tmpdir();
    const env = { ...(options.env ?? process.env) };
    delete env.BUN_BE_BUN;
    this.env = env;
  }

  /** Read, hash and (when the content changed) validate hooks.json, then swap it in. */
  reload(): HooksReloadResult {
    const raw = readHooksFile(this.options.path);
    this.seenStamp = raw.stamp;
    const candidateHash = raw.exists ? raw.hash : null;
    if (raw.exists && raw.hash !== null && raw.hash === this.current.hash) return this.unchanged();
    if (!raw.exists && this.current.hash === null) return this.unchanged();
    if (this.rejected && raw.exists && raw.hash !== null && raw.hash === this.rejected.hash) {
      return { ok: false, error: this.rejected.error, hash: raw.hash, kept: this.current.hash };
    }
    let doc: HooksFile;
    if (!raw.exists) doc = EMPTY;
    else {
      const parsed = parseCandidate(raw);
      if (typeof parsed === "string") return this.reject(candidateHash, parsed);
      doc = parsed;
    }
    this.swap(compile(candidateHash, doc));
    this.logger.info("hooks.json loaded", { hash: candidateHash, actions: this.current.actions });
    return { ok: true, changed: true, hash: candidateHash, actions: this.current.actions };
  }

  /** Reload when the file's stat changed since it was last read. */
  refresh(): HooksReloadResult | null {
    return fileStamp(this.options.path) === this.seenStamp ? null : this.reload();
  }

  list(): HooksSnapshot {
    this.refresh();
    return this.snapshot();
  }

  add(event: string, action: unknown, options: EditOptions = {}): HooksSnapshot {
    return this.edit(options, (doc) => {
      const key = normalizeEventName(event);
      const parsed = HookActionSchema.safeParse(action);
      if (!parsed.success) throw invalid(`hook action for "${event}": ${describeIssues(parsed.error)}`);
      doc.hooks[key] = [...(doc.hooks[key] ?? []), parsed.data];
      return doc;
    });
  }

  replace(doc: unknown, options: EditOptions = {}): HooksSnapshot {
    return this.edit(options, () => doc, true);
  }

  /** Remove one action (by index) or every action of an event. */
  remove(event: string, index?: number, options: EditOptions = {}): HooksSnapshot {
    return this.edit(options, (doc) => {
      const key = normalizeEventName(event);
      const actions = doc.hooks[key];
      if (!actions) throw new PrxError("NOT_FOUND", `no hooks for event "${key}"`, { status: 404 });
      if (index === undefined) delete doc.hooks[key];
      else if (!Number.isInteger(index) || index < 0 || index >= actions.length) {
        throw new PrxError("NOT_FOUND", `event "${key}" has no action #${index} (it has ${actions.length})`, {
          status: 404,
        });
      } else {
        actions.splice(index, 1);
        if (actions.length === 0) delete doc.hooks[key];
      }
      return doc;
    });
  }

  /**
   * Run every action whose key matches the event (normalized; lifecycle names bridged), one after another.
   * A hook's failure is in its result; only a payload past HOOK_PAYLOAD_MAX_BYTES throws.
   */
  async dispatch(event: string, payload: unknown): Promise<HookDispatchResult> {
    let json: string | undefined;
    try {
      json = JSON.stringify(payload);
    } catch (error) {
      throw new PrxError(
        "BAD_REQUEST",
        `hook payload for "${event}" is not JSON-serializable: ${(error as Error).message}`,
      );
    }
    return this.dispatchJson(event, json ?? "null");
  }

  async dispatchJson(event: string, payloadJson: string): Promise<HookDispatchResult> {
    const bytes = Buffer.byteLength(payloadJson, "utf8");
    if (bytes > HOOK_PAYLOAD_MAX_BYTES) {
      throw new PrxError(
        "PAYLOAD_TOO_LARGE",
        `hook payload for "${event}" is ${bytes} bytes; the limit is ${HOOK_PAYLOAD_MAX_BYTES}`,
        {
          status: 413,
          hint: "pass a reference (an id or a path) instead of the data itself",
        },
      );
    }
    this.refresh();
    const normalized = normalizeEventName(event);
    const topic = bridgeEventName(normalized);
    const loaded = this.current;
    const results: HookRunResult[] = [];
    this.counters.dispatched++;
    for (const route of loaded.routes) {
      if (!route.matches(topic) && !route.matches(normalized)) continue;
      for (const [index, action] of route.actions.entries()) {
        const result = await runHookAction(action, {
          event: normalized,
          key: route.key,
          index,
          payloadJson,
          cwdBase: this.root,
          tmpDir: this.tmpDir,
          timeoutMs: action.timeout_ms ?? loaded.doc.timeout_ms ?? HOOK_TIMEOUT_DEFAULT_MS,
          baseEnv: this.env,
          logger: this.logger,
        });
        this.record(result);
        results.push(result);
      }
    }
    return { event: normalized, topic, results };
  }

  status(): HooksStatus {
    return {
      path: this.options.path,
      hash: this.current.hash,
      actions: this.current.actions,
      lastReload: this.lastReload,
      ...this.counters,
      lastError: this.lastError,
    };
  }

  private snapshot(): HooksSnapshot {
    return { hash: this.current.hash, doc: structuredClone(this.current.doc), actions: this.current.actions };
  }

  private unchanged(): HooksReloadResult {
    this.rejected = null;
    return { ok: true, changed: false, hash: this.current.hash, actions: this.current.actions };
  }

  private reject(hash: string | null, error: string): HooksReloadResult {
    this.rejected = { hash, error };
    this.lastReload = { at: new Date().toISOString(), ok: false, error };
    this.logger.warn("hooks.json rejected; previous hooks stay in force", { error, kept: this.current.hash });
    return { ok: false, error, hash, kept: this.current.hash };
  }

  private swap(next: Loaded): void {
    this.current = next;
    this.rejected = null;
    this.lastReload = { at: new Date().toISOString(), ok: true };
    for (const listener of this.changeListeners) listener();
  }

  /** Call `listener` after each swap of the hooks in force; returns the function that removes it. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private edit(options: EditOptions, mutate: (doc: HooksFile) => unknown, replacing = false): HooksSnapshot {
    const disk = this.reload();
    if (!disk.ok && !replacing) {
      throw invalid(`hooks.json on disk is invalid (${disk.error}); fix it or replace the whole document`);
    }
    const currentHash = disk.ok ? this.current.hash : disk.hash;
    if (options.ifMatch !== undefined && options.ifMatch !== currentHash) {
      throw new PrxError(
        "CONFLICT",
        `hooks.json changed (now ${currentHash ?? "absent"}, expected ${options.ifMatch ?? "absent"})`,
        {
          status: 409,
          hint: "list the hooks again and retry the edit",
        },
      );
    }
    const candidate = mutate(structuredClone(this.current.doc));
    const parsed = HooksFileSchema.safeParse(candidate);
    if (!parsed.success) throw invalid(describeIssues(parsed.error));
    const text = JSON.stringify(parsed.data, null, 2) + "\n";
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > HOOKS_FILE_MAX_BYTES) {
      throw new PrxError("LIMIT_EXCEEDED", `hooks.json would be ${bytes} bytes; the limit is ${HOOKS_FILE_MAX_BYTES}`, {
        status: 413,
      });
    }
    writeHooksFileAtomic(this.options.path, text);
    const result = this.reload();
    if (!result.ok) throw invalid(result.error);
    return this.snapshot();
  }

  private record(result: HookRunResult): void {
    this.counters.runs++;
    if (result.ok) return;
    this.counters.failures++;
    const message = result.error ?? "failed";
    this.lastError = { event: result.event, command: result.command, message, at: new Date().toISOString() };
    this.logger.warn("hook failed", {
      event: result.event,
      command: result.command,
      error: message,
      stderr: result.stderr.slice(0, 500),
    });
  }
}

function invalid(message: string): PrxError {
  return new PrxError("HOOKS_INVALID", `hooks.json: ${message}`, {
    status: 400,
    hint: 'expected {"timeout_ms"?: n, "hooks": {"<event>": [{"command": "...", "args": [], "env": {}}]}}',
  });
}

function parseCandidate(raw: ReturnType<typeof readHooksFile>): HooksFile | string {
  if (!raw.exists) return EMPTY;
  if (raw.hash === null) return `file is ${raw.tooLarge} bytes; the limit is ${HOOKS_FILE_MAX_BYTES}`;
  if (raw.text === null) return "file is not valid UTF-8";
  let json: unknown;
  try {
    json = parseJsonBounded(raw.text, "hooks.json");
  } catch (error) {
    return `not valid JSON: ${(error as Error).message}`;
  }
  const parsed = HooksFileSchema.safeParse(json);
  return parsed.success ? parsed.data : describeIssues(parsed.error);
}

function compile(hash: string | null, doc: HooksFile): Loaded {
  const routes = Object.entries(doc.hooks).map(([key, actions]) => ({ key, matches: compilePattern(key), actions }));
  return { hash, doc, routes, actions: routes.reduce((n, r) => n + r.actions.length, 0) };
}
