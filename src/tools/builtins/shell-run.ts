import { realpathSync } from "node:fs";
import { basename } from "node:path";
import type { ToolsConfig } from "../../config/schema.ts";
import { SHELL_ENV_PASSTHROUGH, SHELL_MAX_OUTPUT_BYTES } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import type { ShellArgs } from "./schemas.ts";
import { SHELL_ENABLE_HINT } from "./shell-policy.ts";

/** What the shell tool does once called (shell.ts declares it; this loads with the first call). */

/** Executable for `program` if the allowlist permits it: bare names by basename, paths only when listed exactly. */
function resolveProgram(
  config: ToolsConfig,
  program: string,
  env: Record<string, string>,
): string | { denied: string } {
  const allowed = config.shell_allowlist;
  if (program.includes("/")) {
    if (allowed.includes(program)) return program;
    return { denied: `program path "${program}" is not in tools.shell_allowlist` };
  }
  const entry = allowed.find((candidate) => basename(candidate) === program);
  if (!entry) {
    return { denied: `program "${program}" is not in tools.shell_allowlist (${allowed.join(", ") || "empty"})` };
  }
  if (entry.includes("/")) return entry;
  return Bun.which(program, { PATH: env.PATH ?? "" }) ?? { denied: `program "${program}" was not found on PATH` };
}

/** prx's passthrough variables, then what the call's context adds (an active skill's configured env). */
function childEnv(added: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SHELL_ENV_PASSTHROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...added };
}

/** Keep the first `max` bytes of a stream and keep draining the rest so the child never blocks on a full pipe. */
async function collect(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let kept = 0;
  let dropped = 0;
  for await (const chunk of stream) {
    const room = max - kept;
    if (room > 0) {
      const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      text += decoder.decode(part, { stream: true });
      kept += part.byteLength;
    }
    dropped += Math.max(0, chunk.byteLength - Math.max(0, room));
  }
  text += decoder.decode();
  return dropped > 0 ? `${text}\n[... ${dropped} more bytes dropped ...]` : text;
}

function killGroup(pid: number): void {
  try {
    // the child leads its own process group (detached), so this also reaches anything it started
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** One shell call: an allowlisted program, no shell, in the workspace, bounded in time and output. */
export async function runShell(config: ToolsConfig, workspace: string, args: ShellArgs, context: ToolContext): Promise<ToolResult> {
  if (!config.shell_enabled) return fail(`the shell tool is disabled. To enable it, ${SHELL_ENABLE_HINT}`);
  const argv = args.command ?? [args.program!, ...(args.args ?? [])];
  if (argv.some((arg) => arg.includes("\u0000"))) return fail("shell: arguments must not contain NUL bytes");
  const env = childEnv(context.env);
  const program = resolveProgram(config, argv[0]!, env);
  if (typeof program !== "string") return fail(`shell: ${program.denied}. To allow it, ${SHELL_ENABLE_HINT}`);
  if (context.signal.aborted) return fail("shell: aborted before start");
  const child = Bun.spawn([program, ...argv.slice(1)], {
    cwd: realpathSync(workspace),
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, config.shell_timeout_ms);
  const onAbort = () => killGroup(child.pid);
  context.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const [stdout, stderr, exitCode] = await Promise.all([
      collect(child.stdout, SHELL_MAX_OUTPUT_BYTES),
      collect(child.stderr, SHELL_MAX_OUTPUT_BYTES),
      child.exited,
    ]);
    const parts = [`exit code: ${exitCode}`, stdout];
    if (stderr.length > 0) parts.push(`--- stderr ---\n${stderr}`);
    const output = parts.join("\n");
    if (timedOut) {
      return fail(`shell: ${argv[0]} timed out after ${config.shell_timeout_ms} ms and was killed`, output);
    }
    if (context.signal.aborted) return fail(`shell: ${argv[0]} was aborted and killed`, output);
    return exitCode === 0 ? ok(output) : fail(`shell: ${argv[0]} exited with code ${exitCode}`, output);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onAbort);
  }
}
