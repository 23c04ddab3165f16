/**
 * An elizaOS plugin from npm as a user gets it with the built binary: a temp workspace (config.toml given), the
 * workspace's gateway running (`prx gateway`), and `prx plugins add <package>@<version>` against the real npm
 * registry, loaded by that gateway. The gateway's stderr is kept for tests that read its log.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runPrx, startGatewayBinary, tempWorkspace, type RunResult } from "../../helpers/binary.ts";

export interface NpmBinaryWorkspace {
  dir: string;
  url: string;
  token: string;
  /** `prx <args> -w <dir> --url <gateway>` */
  prx(args: string[]): Promise<RunResult>;
  /** `prx plugins add <spec>`, failing the test unless it added the plugin and the gateway loaded it. */
  add(spec: string): Promise<RunResult>;
  /** A request to the gateway with the workspace's token. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** POST /v1/chat/completions of one user message to `model`. */
  chat(model: string, content: string): Promise<Response>;
  /** Stop the gateway; its stderr (the last OUTPUT_TAIL_MAX_CHARS characters, test/helpers/output-tail.ts) and logs/prx.log. */
  stop(): Promise<{ stderr: string; log: string }>;
}

/** Why the registry cannot be used here, or null when `pkg` answers. */
export async function registryUnreachable(pkg: string): Promise<string | null> {
  return fetch(`https://registry.npmjs.org/${pkg.replace("/", "%2f")}`, { signal: AbortSignal.timeout(15_000) }).then(
    (r) => (r.ok ? null : `the npm registry answered ${r.status}`),
    (e: Error) => `the npm registry is unreachable: ${e.message}`,
  );
}

/** A workspace with `config` and its gateway running (log level `log`, default: prx's own). */
export async function npmBinaryWorkspace(config: string, prefix: string, log?: string): Promise<NpmBinaryWorkspace> {
  await ensureBinary();
  const ws = tempWorkspace(config, { prefix });
  const env: Record<string, string> = log ? { PRX_LOG: log } : {};
  const created = await runPrx(["gateway", "token", "create", "-w", ws.dir], { env: { PRX_LOG: "error" } });
  const token = created.stdout.trim();
  const { proc, url, stderr } = await startGatewayBinary(ws.dir, env, "listening");
  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
  const prx = (args: string[]) => runPrx([...args, "-w", ws.dir, "--url", url], { env: { PRX_LOG: "error" }, timeoutMs: 170_000 });
  return {
    dir: ws.dir,
    url,
    token,
    prx,
    async add(spec) {
      const added = await prx(["plugins", "add", spec]);
      if (added.code !== 0 || !added.stdout.includes("the running gateway reloaded")) {
        throw new Error(`prx plugins add ${spec} failed (${added.code}):\n${added.stdout}\n${added.stderr}`);
      }
      return added;
    },
    request,
    chat: (model, content) =>
      request("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content }] }),
      }),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      const file = join(ws.dir, "logs", "prx.log");
      const log = existsSync(file) ? readFileSync(file, "utf8") : "";
      await stderr.ended;
      ws.cleanup();
      return { stderr: stderr.text(), log };
    },
  };
}

/**
 * Lines of a log at WARN or ERROR: prx's own (`WARN ` / `ERROR `), a plugin's as elizaOS's logger writes them
 * (`[openai]  Warn ...`), and process warnings (`(node:123) Warning: ...`).
 */
export function warningLines(text: string): string[] {
  return text.split("\n").filter((line) => /\b(WARN|ERROR|FATAL)\b|\]\s+(Warn|Error|Fatal)\s|\bWarning:/.test(line));
}
