/** The built gateway on a workspace holding the hostile plugin (tests and the hostile bench). */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { writeHostilePlugin, type HostileOptions } from "./fixture.ts";

export interface HostileGateway {
  url: string;
  token: string;
  proc: Bun.Subprocess<"ignore", "pipe", "pipe" | number>;
  workspace: string;
  /** GET with the bearer token. */
  get(path: string, init?: RequestInit): Promise<Response>;
  /** remote status of the hostile plugin from /api/plugins. */
  remote(): Promise<{ state: string; pid: number | null; [key: string]: unknown }>;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  binary: string;
  plugin: HostileOptions;
  /** Extra config.toml text (a provider). */
  config?: string;
  /** Plugin directories copied into the workspace beside the hostile plugin. */
  extraPlugins?: string[];
  /** Where the gateway's stderr goes (a file path); default piped and drained. */
  stderrFile?: string;
  env?: Record<string, string>;
}

export async function startHostileGateway(options: GatewayOptions): Promise<HostileGateway> {
  const workspace = mkdtempSync(join(tmpdir(), "prx-hostile-gw-"));
  mkdirSync(join(workspace, "plugins"));
  writeHostilePlugin(join(workspace, "plugins"), options.plugin);
  for (const dir of options.extraPlugins ?? []) {
    cpSync(dir, join(workspace, "plugins", basename(dir)), { recursive: true });
  }
  writeFileSync(join(workspace, "config.toml"), options.config ?? "");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace, PRX_LOG: "error", ...options.env };
  const created = Bun.spawnSync([options.binary, "gateway", "token", "create", "-w", workspace], { env });
  if (created.exitCode !== 0) throw new Error(`token create failed: ${created.stderr.toString()}`);
  const token = created.stdout.toString().trim();
  const stderr = options.stderrFile ? Bun.file(options.stderrFile) : "pipe";
  const proc = Bun.spawn([options.binary, "gateway", "--port", "0", "-w", workspace], {
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr,
  }) as HostileGateway["proc"];
  if (!options.stderrFile) void new Response(proc.stderr as ReadableStream).arrayBuffer();
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { done, value } = await reader.read();
    if (done) {
      rmSync(workspace, { recursive: true, force: true });
      throw new Error(`gateway exited before listening (code ${await proc.exited})`);
    }
    text += new TextDecoder().decode(value);
  }
  // keep draining stdout so the gateway never blocks on it
  void (async () => {
    while (!(await reader.read()).done);
  })();
  const url = /listening on (\S+)/.exec(text)![1]!;
  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  return {
    url,
    token,
    proc,
    workspace,
    get,
    async remote() {
      const list = (await (await get("/api/plugins")).json()) as { plugins: Array<{ name: string; remote: never }> };
      return list.plugins.find((p) => p.name === "hostile")!.remote;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await proc.exited;
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export { alive } from "../../helpers/process.ts";
