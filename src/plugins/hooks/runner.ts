import { isAbsolute, resolve } from "node:path";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { becomeSubreaper, ProcessTree } from "../../core/supervise/index.ts";
import { CappedCapture } from "./capture.ts";
import { HOOK_PIPE_DRAIN_MS, HOOK_STDERR_MAX_BYTES, HOOK_STDOUT_MAX_BYTES } from "./limits.ts";
import type { HookAction } from "./schema.ts";
import { PayloadFile } from "./tempfile.ts";
import type { HookRunResult } from "./types.ts";

export interface HookRunContext {
  event: string;
  key: string;
  index: number;
  payloadJson: string;
  /** Relative cwd values are resolved against this (the workspace root). */
  cwdBase: string;
  tmpDir: string;
  timeoutMs: number;
  /** Inherited environment (prx's own, minus BUN_BE_BUN). */
  baseEnv: Record<string, string | undefined>;
  logger: Logger;
}

/**
 * Run one action without a shell: argv via Bun.spawn, the payload on stdin (when stdin_json) and in a 0600 file named
 * by PRX_HOOK_PAYLOAD_FILE. The child leads its own process group (detached = setsid), so a timeout kills the whole
 * group with SIGKILL and reaps the leader. The payload file is removed on every path out of this function.
 */
export async function runHookAction(action: HookAction, ctx: HookRunContext): Promise<HookRunResult> {
  const started = performance.now();
  const base: Omit<HookRunResult, "ok" | "durationMs"> = {
    event: ctx.event,
    key: ctx.key,
    index: ctx.index,
    command: action.command,
    exitCode: null,
    signal: null,
    timedOut: false,
    timeoutMs: ctx.timeoutMs,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
  };
  const failed = (error: string): HookRunResult => ({
    ...base,
    ok: false,
    error,
    durationMs: performance.now() - started,
  });

  let payloadFile: PayloadFile;
  try {
    payloadFile = PayloadFile.create(ctx.tmpDir, ctx.payloadJson, ctx.logger);
  } catch (error) {
    return failed(errorMessage(error));
  }
  using _cleanup = payloadFile;

  const cwd = action.cwd ? (isAbsolute(action.cwd) ? action.cwd : resolve(ctx.cwdBase, action.cwd)) : ctx.cwdBase;
  const env: Record<string, string | undefined> = {
    ...ctx.baseEnv,
    ...action.env,
    PRX_HOOK_EVENT: ctx.event,
    PRX_HOOK_PAYLOAD_FILE: payloadFile.path,
  };
  let child: Bun.Subprocess<Uint8Array | "ignore", "pipe", "pipe">;
  // nothing the command starts outlives it: not a `setsid cmd &`, not a double-forked daemon
  await becomeSubreaper();
  const tree = new ProcessTree(`hook-${ctx.event}`);
  try {
    child = Bun.spawn([action.command, ...action.args], {
      cwd,
      env: tree.env(env),
      stdin: action.stdin_json ? Buffer.from(ctx.payloadJson) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (error) {
    void tree.reap();
    return failed(`cannot start ${action.command} in ${cwd}: ${errorMessage(error)}`);
  }
  tree.adopt(child.pid);
  base.pid = child.pid;

  const stdout = new CappedCapture(child.stdout, HOOK_STDOUT_MAX_BYTES);
  const stderr = new CappedCapture(child.stderr, HOOK_STDERR_MAX_BYTES);
  const timer = setTimeout(() => {
    base.timedOut = true;
    killGroup(child.pid, ctx.logger);
  }, ctx.timeoutMs);
  let exitCode: number;
  try {
    exitCode = await child.exited;
  } finally {
    clearTimeout(timer);
  }
  // What the hook left behind, in its group or escaped from it, ends with it (and so lets go of our pipes).
  const leftBehind = await tree.reap();
  if (leftBehind > 0) ctx.logger.warn("hook command left processes running; killed them", { command: action.command, killed: leftBehind });
  const drained = await Promise.race([
    Promise.all([stdout.done, stderr.done]).then(() => true),
    Bun.sleep(HOOK_PIPE_DRAIN_MS).then(() => false),
  ]);
  if (!drained) await Promise.all([stdout.stop(), stderr.stop()]);

  const signal = child.signalCode === null ? null : String(child.signalCode);
  const result: HookRunResult = {
    ...base,
    exitCode: signal ? null : exitCode,
    signal,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    ok: !base.timedOut && exitCode === 0 && !signal,
    durationMs: performance.now() - started,
  };
  if (base.timedOut) result.error = `timed out after ${ctx.timeoutMs} ms; process group killed`;
  else if (!result.ok) result.error = signal ? `killed by ${signal}` : `exited with code ${exitCode}`;
  return result;
}

function killGroup(pid: number, logger: Logger): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    // ESRCH: the group is already gone.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") {
      logger.warn("cannot kill hook process group", { pid, error: (error as Error).message });
      try {
        process.kill(pid, "SIGKILL");
      } catch (inner) {
        logger.warn("cannot kill hook process", { pid, error: (inner as Error).message });
      }
    }
  }
}
