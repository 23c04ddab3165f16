import { PrxError } from "../../../core/errors.ts";
import type { KillReason } from "../types.ts";

import { REMOTE_MAX_PENDING_CALLS } from "../limits.ts";

/** Why the worker of a call is gone: shut down, killed by the host (why), or it exited by itself (reason, stderr). */
export interface GoneReason {
  stopping: boolean;
  killed: KillReason | null;
  reason: string;
  stderr: string[];
}

/** The errors callers of a remote plugin see, in one place so their wording stays consistent. */
export const remoteErrors = {
  shutDown: (plugin: string, label: string) =>
    new PrxError("PLUGIN_NOT_FOUND", `remote plugin ${plugin} is shut down; ${label} not called`),
  failed: (plugin: string, lastError: string | null) =>
    new PrxError("REMOTE_CRASHED", `remote plugin ${plugin} has failed: ${lastError ?? "unknown"}`, {
      hint: "fix the plugin and reload it (prx plugins reload)",
    }),
  busy: (plugin: string, label: string) =>
    new PrxError(
      "LIMIT_EXCEEDED",
      `remote plugin ${plugin} has ${REMOTE_MAX_PENDING_CALLS} calls in flight; ${label} refused`,
      {
        hint: "the plugin is overloaded or stuck; retry later",
      },
    ),
  cutByShutdown: (plugin: string, label: string) =>
    new PrxError("ABORTED", `remote plugin ${plugin} was shut down while ${label} was running`, {
      hint: "shutdown and reload wait for running calls up to the shutdown grace, then stop the plugin",
    }),
  aborted: (plugin: string, label: string) =>
    new PrxError("ABORTED", `call to remote plugin ${plugin} ${label} aborted`),
  timedOut: (plugin: string, label: string, ms: number) =>
    new PrxError(
      "PLUGIN_TIMEOUT",
      `remote plugin ${plugin}: ${label} did not answer within ${ms} ms and was cancelled`,
      {
        hint: "raise [remote] rpc_timeout_ms in plugin.toml if the call is legitimately slow",
      },
    ),
  notReady: (plugin: string, ms: number, why?: string) =>
    new PrxError(
      "PLUGIN_TIMEOUT",
      `remote plugin ${plugin} did not become ready within ${ms} ms${why ? ` (${why})` : ""}`,
      { hint: "it is starting, restarting or has not acknowledged a cancel yet; retry, or see `prx plugins info`" },
    ),
  killed: (plugin: string, label: string, kill: KillReason) =>
    new PrxError(kill.code, `remote plugin ${plugin} was killed during ${label}: ${kill.reason}`, {
      hint: `${kill.hint}; the plugin is restarted automatically`,
    }),
  crashed: (plugin: string, label: string, reason: string, stderr: string[]) =>
    new PrxError("REMOTE_CRASHED", `remote plugin ${plugin} crashed during ${label} (${reason})`, {
      hint: "the plugin is restarted automatically; see its stderr in details",
      details: { stderr },
    }),
  /** A call the worker can no longer answer: it was shut down, killed by the host, or crashed. */
  gone: (plugin: string, label: string, why: GoneReason) =>
    why.stopping
      ? remoteErrors.cutByShutdown(plugin, label)
      : why.killed
        ? remoteErrors.killed(plugin, label, why.killed)
        : remoteErrors.crashed(plugin, label, why.reason, why.stderr),
};
