import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { OutputTail } from "./output-tail.ts";

export { tempWorkspace } from "./workspace.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const BINARY = process.env.PRX_BINARY ?? join(ROOT, "dist", "prx");

let building: Promise<void> | null = null;

/** The e2e tests run the compiled binary; build it once if it is missing (CI builds it before bench, not before tests). */
export function ensureBinary(): Promise<void> {
  if (existsSync(BINARY)) return Promise.resolve();
  building ??= (async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, "build.ts")], { stdout: "inherit", stderr: "inherit" });
    if ((await proc.exited) !== 0) throw new Error("bun build.ts failed; see output above");
  })();
  return building;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the binary to completion with a clean environment (no inherited PRX_* or provider keys). */
export async function runPrx(args: string[], options: { stdin?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<RunResult> {
  await ensureBinary();
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env };
  const proc = Bun.spawn([BINARY, ...args], {
    env,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 30_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * A config.toml with the fake provider as the default. `level`: `[autonomy] level` (tests that call tools expect them
 * to run without asking: "full"); null leaves the default (supervised).
 */
export function fakeProviderConfig(url: string, extra = "", level: "read_only" | "supervised" | "full" | null = "full"): string {
  const autonomy = level === null ? "" : `autonomy = { level = "${level}" }\n`;
  return `default_provider = "fake"\ndefault_model = "fake-model"\n${autonomy}[providers.fake]\nkind = "openai-compatible"\nbase_url = "${url}"\n${extra}`;
}

export interface RunningGateway {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  code: string | null;
  /** Stdout's lines up to the one the start waited for (and any that came with it). */
  lines: string[];
  /**
   * The gateway's stdout and stderr, read as they come until it exits (so it never blocks on a full pipe): their
   * last characters, and a wait for a line. Its `proc.stdout` and `proc.stderr` are theirs: read these instead.
   */
  stdout: OutputTail;
  stderr: OutputTail;
}

/** How long a gateway gets to print its listening line (and pairing code) before its start is reported failed. */
const GATEWAY_START_TIMEOUT_MS = 20_000;

/**
 * Start `prx gateway --port 0` (with extra environment variables) and wait for its listening line and pairing code,
 * or (`until: "listening"`) for its listening line alone.
 */
export async function startGatewayBinary(
  dir: string,
  env: Record<string, string> = {},
  until: "pairing" | "listening" = "pairing",
): Promise<RunningGateway> {
  await ensureBinary();
  const proc = Bun.spawn([BINARY, "gateway", "--port", "0", "-w", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = new OutputTail(proc.stdout as ReadableStream<Uint8Array>);
  const stderr = new OutputTail(proc.stderr as ReadableStream<Uint8Array>);
  const awaited = until === "pairing" ? "prx gateway pairing code" : "prx gateway listening on ";
  const started = await stdout.line((line) => line.startsWith(awaited), { timeoutMs: GATEWAY_START_TIMEOUT_MS }).then(
    () => true,
    () => false, // the stream ended or the time passed: reported below with both streams
  );
  const lines = stdout.lines();
  const listening = lines.find((l) => l.startsWith("prx gateway listening on "));
  if (!started || !listening) {
    proc.kill("SIGKILL");
    await proc.exited;
    await Promise.all([stdout.ended, stderr.ended]);
    throw new Error(`gateway did not start: ${stdout.text()}\n${stderr.text()}`);
  }
  const code = /pairing code: ([A-Z2-9]{8})/.exec(lines.join("\n"))?.[1] ?? null;
  return { proc, url: listening.slice("prx gateway listening on ".length), code, lines, stdout, stderr };
}
