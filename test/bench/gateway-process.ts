/**
 * A built gateway in its own process, as the bench suites start it: a workspace answering from a fake provider, a
 * token, and `prx gateway` on a free port with its stderr (the access log) in a file of the workspace.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** A workspace config answering from the fake at `fakeUrl`, with rate limits out of the way. */
export function writeConfig(dir: string, fakeUrl: string): void {
  writeFileSync(
    join(dir, "config.toml"),
    // tools the scenarios call run without asking for approval
    `default_provider = "fake"\ndefault_model = "fake-model"\nautonomy = { level = "full" }\n[providers.fake]\nkind = "openai-compatible"\n` +
      `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\n[gateway]\nrate_limit_per_minute = 100000000\n` +
      `rate_limit_per_token_per_minute = 100000000\n`,
  );
}

export function env(tmp: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp };
}

export function createToken(binary: string, ws: string, tmp: string): string {
  const created = Bun.spawnSync([binary, "gateway", "token", "create", "--name", "bench", "-w", ws], { env: env(tmp) });
  if (created.exitCode !== 0) throw new Error(`token create failed: ${created.stderr.toString()}`);
  return created.stdout.toString().trim();
}

/** The gateway's stderr (its access log: one line per request) goes to this file in the workspace. */
export const LOG_FILE = "gateway-stderr.log";

export async function startGateway(
  binary: string,
  ws: string,
  tmp: string,
): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string; ms: number }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = Bun.spawn([binary, "gateway", "--port", String(port), "-w", ws], {
    env: env(tmp),
    stdout: "ignore",
    stderr: Bun.file(join(tmp, LOG_FILE)),
  });
  const deadline = started + 10_000;
  for (;;) {
    const status = await fetch(`${url}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (performance.now() > deadline || proc.exitCode !== null)
      throw new Error(`gateway did not become healthy (exit ${proc.exitCode})`);
    await Bun.sleep(1);
  }
  return { proc, url, ms: performance.now() - started };
}

export async function stopGateway(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}


/**
 * `prx gateway --port 0` in `dir` with this config.toml (written first), once it prints where it listens. Its stdout
 * is read up to that line; stderr is ignored.
 */
export async function listeningGateway(binary: string, dir: string, config: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.toml"), config);
  const proc = Bun.spawn([binary, "gateway", "--port", "0", "-w", dir], { env: { PATH: process.env.PATH ?? "", HOME: dir }, stdout: "pipe", stderr: "ignore" });
  let seen = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
    seen += decoder.decode(chunk, { stream: true });
    if (/listening on (\S+)/.test(seen)) break;
  }
  const url = /listening on (\S+)/.exec(seen)?.[1];
  if (!url) throw new Error(`gateway in ${dir} did not start: ${seen}`);
  return { proc, url };
}
