import type { HookAction, HooksFile } from "./schema.ts";

/** The outcome of one hook action run. */
export interface HookRunResult {
  /** The normalized event name it ran for, and the hooks.json key that matched it. */
  event: string;
  key: string;
  index: number;
  command: string;
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The timeout that applied: the action's, else the file's, else HOOK_TIMEOUT_DEFAULT_MS. */
  timeoutMs: number;
  durationMs: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Why it did not run or did not succeed, when ok is false. */
  error?: string;
  pid?: number;
}

export interface HookDispatchResult {
  /** Normalized event name, and the bus topic it bridges to (prx.lifecycle.* for native lifecycle names). */
  event: string;
  topic: string;
  results: HookRunResult[];
}

export type HooksReloadResult =
  | { ok: true; changed: boolean; hash: string | null; actions: number }
  | {
      ok: false;
      /** Why the candidate was rejected. */
      error: string;
      /** Hash of the rejected candidate. */
      hash: string | null;
      /** Hash of the hooks still in force. */
      kept: string | null;
    };

/** The hooks in force, as the edit API returns them. `hash` is null when there is no hooks.json. */
export interface HooksSnapshot {
  hash: string | null;
  doc: HooksFile;
  actions: number;
}

export interface HooksStatus {
  path: string;
  hash: string | null;
  actions: number;
  lastReload: { at: string; ok: boolean; error?: string } | null;
  dispatched: number;
  runs: number;
  failures: number;
  lastError: { event: string; command: string; message: string; at: string } | null;
}

export type { HookAction, HooksFile };
