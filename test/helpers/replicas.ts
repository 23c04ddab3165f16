/**
 * Gateway replicas of the built binary sharing one PostgreSQL schema and one Redis prefix: each in its own workspace
 * directory (its own data/prx.db for what stays local), the same config.toml. Their output is drained and kept.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pgStorage } from "../../src/storage/postgres/index.ts";
import { BINARY, ROOT } from "./binary.ts";
import { eachLine } from "./lines.ts";
import { dropKeys, dropSchema, TEST_DATABASE_URL, TEST_REDIS_URL } from "./servers.ts";
import { tempWorkspace } from "./workspace.ts";

export interface Replica {
  dir: string;
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  stdout: string[];
  stderr: string[];
  /** Lines of stderr matching `pattern`. */
  grep(pattern: RegExp): string[];
  kill(signal?: number | NodeJS.Signals): Promise<void>;
}

export function sharedConfig(fakeUrl: string, schema: string, prefix: string, extra = ""): string {
  return [
    'default_provider = "fake"',
    'default_model = "fake-model"',
    "[providers.fake]",
    'kind = "openai-compatible"',
    `base_url = "${fakeUrl}"`,
    "[storage]",
    'backend = "postgres"',
    `schema = "${schema}"`,
    "[memory]",
    'backend = "postgres"',
    "[bus]",
    'backend = "redis"',
    `prefix = "${prefix}"`,
    "[gateway]",
    "rate_limit_per_minute = 100000",
    "rate_limit_per_token_per_minute = 100000",
    extra,
  ].join("\n");
}

/** A workspace with `config` and copies of the test plugins named (relative to test/fixtures/). */
export function replicaWorkspace(config: string, plugins: string[] = []): string {
  const ws = tempWorkspace(config, { prefix: "prx-replica-", plugins: plugins.map((plugin) => join(ROOT, "test", "fixtures", plugin)) });
  return ws.dir;
}

/** Start `prx gateway --port 0` in `dir` (of `binary`, dist/prx by default) and wait for its listening line. */
export async function startReplica(dir: string, env: Record<string, string> = {}, binary = BINARY): Promise<Replica> {
  const proc = Bun.spawn([binary, "gateway", "--port", "0", "-w", dir], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: TEST_REDIS_URL,
      PRX_LOG: "info",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  let listening: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  void eachLine(proc.stdout as ReadableStream<Uint8Array>, (line) => {
    stdout.push(line);
    if (line.startsWith("prx gateway listening on ")) listening(line.slice("prx gateway listening on ".length));
  });
  void eachLine(proc.stderr as ReadableStream<Uint8Array>, (line) => stderr.push(line));
  const started = await Promise.race([url, proc.exited.then(() => null), Bun.sleep(30_000).then(() => null)]);
  if (started === null) {
    proc.kill(9);
    throw new Error(`replica in ${dir} did not start:\n${stdout.join("\n")}\n${stderr.join("\n")}`);
  }
  return {
    dir,
    url: started,
    proc,
    stdout,
    stderr,
    grep: (pattern) => stderr.filter((line) => pattern.test(line)),
    async kill(signal = "SIGTERM") {
      proc.kill(signal);
      await proc.exited;
    },
  };
}

/** Migrate the schema and create one bearer token every replica accepts. */
export async function sharedToken(schema: string): Promise<string> {
  const storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  try {
    return (await storage.tokens.create("replicas")).token;
  } finally {
    await storage.close();
  }
}

/** A plugin KV value as every replica sees it (the PostgreSQL store of the schema), as text. */
export async function sharedKv(schema: string, plugin: string, key: string): Promise<string | null> {
  const storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 1, migrate: false });
  try {
    const value = await storage.pluginKv.get(plugin, key);
    return value ? new TextDecoder().decode(value) : null;
  } finally {
    await storage.close();
  }
}

export function removeWorkspace(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** After a replica test: the replicas killed, their workspaces removed, and (when the servers were up) the shared schema and Redis keys gone. */
export async function removeReplicas(replicas: Replica[], shared: { up: boolean; schema: string; prefix: string }): Promise<void> {
  for (const r of replicas) if (r.proc.exitCode === null) await r.kill("SIGKILL");
  for (const r of replicas) removeWorkspace(r.dir);
  if (!shared.up) return;
  await dropSchema(shared.schema);
  await dropKeys(shared.prefix);
}
