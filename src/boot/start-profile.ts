/**
 * Build-time only (build.ts; a kept start-up trick, see tricks.ts): runs a freshly built binary through its common starts with `BUN_BYTECODE_ORDER_OUT`,
 * so the final build lays out the bytecode those starts use together at the front of the executable (Bun's
 * profile-guided bytecode layout): fewer pages of the embedded bundle are touched, which is start-up time and
 * resident memory. Most common start first: the gateway, one `prx agent -m` turn, a channel process, `--version`.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A start that does not reach its line in this long is a broken build, not a slow machine. */
const START_PROFILE_TIMEOUT_MS = 30_000;

const CONFIG = `default_provider = "off"
default_model = "m"
[providers.off]
kind = "offline"
[channels.hook]
kind = "webhook"
secret_env = "PROFILE_HOOK_SECRET"
`;

interface Start {
  name: string;
  args: string[];
  /** Long-running starts are stopped (SIGTERM) once they print this. */
  until?: RegExp;
  /** Requests made once the line is printed (the gateway's first requests). */
  visit?: (line: RegExpMatchArray) => Promise<void>;
}

const STARTS: Start[] = [
  {
    name: "gateway",
    args: ["gateway", "--port", "0"],
    until: /listening on (http:\/\/\S+)/,
    // its first requests: a health check, the console, an API route
    visit: async ([, base]) => {
      for (const path of ["/health", "/", "/v1/models"]) await (await fetch(`${base}${path}`)).arrayBuffer();
    },
  },
  { name: "agent", args: ["agent", "-m", "hello"] },
  { name: "channel", args: ["channel", "run", "hook"], until: /running/ },
  { name: "version", args: ["--version"] },
];

async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<RegExpMatchArray | null> {
  const decoder = new TextDecoder();
  let seen = "";
  for await (const chunk of stream) {
    seen += decoder.decode(chunk, { stream: true });
    const match = seen.match(pattern);
    if (match) return match;
  }
  return null;
}

/** The order file of one start, or null (with a warning) when the run wrote none: the build then lays out without it. */
async function profileOne(binary: string, dir: string, start: Start): Promise<string | null> {
  const out = join(dir, `${start.name}.order`);
  const proc = Bun.spawn([binary, ...start.args, "-w", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PROFILE_HOOK_SECRET: "profile-secret-0123456789", BUN_BYTECODE_ORDER_OUT: out },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), START_PROFILE_TIMEOUT_MS);
  try {
    if (start.until) {
      const match = await readUntil(proc.stdout, start.until);
      if (match) {
        await start.visit?.(match);
        proc.kill("SIGTERM");
      }
    }
    const code = await proc.exited;
    const stopped = start.until !== undefined && code === 143;
    if (code !== 0 && !stopped) {
      throw new Error(`profiling \`prx ${start.args.join(" ")}\` failed (exit ${code}): ${await new Response(proc.stderr).text()}`);
    }
  } finally {
    clearTimeout(timer);
  }
  if (statSync(out, { throwIfNoEntry: false })?.size) return out;
  console.warn(`warning: profiling \`prx ${start.args.join(" ")}\` wrote no bytecode order file; the build goes on without it`);
  return null;
}

/**
 * Record one order file per start into a fresh directory; returns the files (most common start first) and a
 * function that removes them.
 */
export async function recordStartProfiles(binary: string): Promise<{ files: string[]; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "prx-start-profile-"));
  writeFileSync(join(dir, "config.toml"), CONFIG);
  try {
    // a first turn creates the database and caches the validated config: the recorded starts are warm ones, as
    // nearly every start is (profileOne with a throwaway order file)
    await profileOne(binary, dir, { name: "warm-up", args: ["agent", "-m", "hello"] });
    const files: string[] = [];
    for (const start of STARTS) {
      const file = await profileOne(binary, dir, start);
      if (file) files.push(file);
    }
    return { files, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
