import { existsSync } from "node:fs";
import { PrxError } from "../../../core/errors.ts";
import { becomeSubreaper, ProcessTree } from "../../../core/supervise/index.ts";
import { REMOTE_CHILD_ARG, REMOTE_WORKER_ENTRYPOINTS } from "../entrypoints.ts";
import { BatchedWriter, LineDecoder, previewBytes } from "../protocol/index.ts";
import { pumpStream } from "./pump.ts";
import { Linger } from "../../hop/index.ts";
import { HOP_WORKER_DATA_KEY, HopBoxes, openProcessHop, REMOTE_HOP_FD_ENV, type ProcessHop } from "../hop/index.ts";
import { REMOTE_ANSWER_WAIT_US } from "../limits.ts";
import { TailLines } from "../host/output/index.ts";
import { REMOTE_CHANNEL_ENV } from "../worker-runtime/channel.ts";
import { REMOTE_LAUNCH_ENV, type LaunchConfig } from "../worker-runtime/launcher.ts";
import type { RefusedDetail, RefusedKind } from "../types.ts";
import type { HostTransport } from "./types.ts";

export { REMOTE_CHILD_ARG, REMOTE_WORKER_ENTRYPOINTS };

const CHILD_MAIN = new URL("../child-main.ts", import.meta.url).pathname;
let workerEntry: string | null = null;

/**
 * The Worker script. In a compiled binary entrypoints live under /$bunfs/root/ relative to the common directory of
 * all entrypoints (which depends on the build), so look for the embedded file by its path suffixes.
 */
export function workerEntryPath(): string {
  if (workerEntry) return workerEntry;
  if (!isCompiledBinary()) return (workerEntry = new URL("../worker-runtime/worker-entry.ts", import.meta.url).href);
  const path = import.meta.path.replaceAll("\\", "/");
  const root = path.slice(0, path.indexOf("root/") + "root/".length);
  const parts = REMOTE_WORKER_ENTRYPOINTS[0].replace(/\.ts$/, ".js").split("/");
  for (let i = 0; i < parts.length; i++) {
    const candidate = root + parts.slice(i).join("/");
    if (existsSync(candidate)) return (workerEntry = candidate);
  }
  throw new PrxError("PLUGIN_LOAD", "the remote plugin Worker script is not embedded in this binary", {
    hint: `build with ${REMOTE_WORKER_ENTRYPOINTS.join(" ")} as extra entrypoints of bun build --compile`,
  });
}

/** True inside a `bun build --compile` binary (modules live under /$bunfs, or B:/~BUN on Windows). */
export function isCompiledBinary(): boolean {
  const path = import.meta.path;
  return path.startsWith("/$bunfs/") || path.includes("~BUN");
}

const PASSTHROUGH_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PRX_LOG", "NO_COLOR"] as const;
const RESERVED_ENV = /^(PATH|HOME|NODE_OPTIONS|BUN_.*|LD_.*|DYLD_.*|PRX_REMOTE_PLUGIN_.*|ELIZA_REMOTE_PLUGIN_.*)$/;

/**
 * A minimal environment: no inherited secrets (API keys, tokens), a few locale/path variables, the plugin's
 * settings as variables (unless they would shadow a reserved name), and the launch config.
 */
export function pluginEnvironment(config: LaunchConfig, stdio: boolean): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSTHROUGH_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [key, value] of Object.entries(config.settings)) {
    // a table or an array reaches process.env as its JSON text (getSetting reads the value itself)
    if (value !== null && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !RESERVED_ENV.test(key)) env[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  env[REMOTE_LAUNCH_ENV] = JSON.stringify(config);
  if (stdio) env[REMOTE_CHANNEL_ENV] = "stdio";
  return env;
}

class Listeners {
  message: (text: string) => void = () => {};
  refused: (kind: RefusedKind, detail: RefusedDetail, count: number) => void = () => {};
  private readonly exitHandlers: Array<(code: number | null, reason: string) => void> = [];
  private exitInfo: [number | null, string] | null = null;
  addExit(handler: (code: number | null, reason: string) => void): void {
    if (this.exitInfo) handler(...this.exitInfo);
    else this.exitHandlers.push(handler);
  }
  fireExit(code: number | null, reason: string): void {
    if (this.exitInfo) return;
    this.exitInfo = [code, reason];
    for (const handler of this.exitHandlers.splice(0)) handler(code, reason);
  }
}

export function startWorkerTransport(config: LaunchConfig): HostTransport {
  const l = new Listeners();
  let lastError = "";
  let worker: Worker;
  const hop = new HopBoxes();
  const answers = new Linger(REMOTE_ANSWER_WAIT_US);
  try {
    const workerData = { [HOP_WORKER_DATA_KEY]: hop.buffers };
    worker = new Worker(workerEntryPath(), { env: pluginEnvironment(config, false), workerData } as WorkerOptions);
  } catch (cause) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `cannot start a Worker for remote plugin ${config.name}: ${(cause as Error).message}`,
      {
        cause,
        hint: `check that ${REMOTE_WORKER_ENTRYPOINTS[0]} is an entrypoint of the compiled binary`,
      },
    );
  }
  worker.onmessage = (event: MessageEvent) => {
    if (typeof event.data === "string") l.message(event.data);
    else l.refused("malformed", `non-string postMessage of type ${typeof event.data}`, 1);
  };
  worker.onerror = (event: ErrorEvent) => {
    lastError = event.message || "uncaught error in worker";
    event.preventDefault?.();
  };
  worker.addEventListener("close", (event: Event) => {
    const code = (event as CloseEvent & { code?: number }).code ?? null;
    l.fireExit(code, lastError ? `worker error: ${lastError}` : `worker exited with code ${code}`);
  });
  return {
    kind: "worker",
    pid: null,
    hop,
    send: (text) => {
      worker.postMessage(text);
      hop.toPlugin.posted();
    },
    expectAnswer: () => {
      const seen = hop.toHost.seen();
      answers.soon((windowUs) => hop.toHost.linger(seen, windowUs));
    },
    onMessage: (h) => void (l.message = h),
    onRefused: (h) => void (l.refused = h),
    onExit: (h) => l.addExit(h),
    kill: () => worker.terminate(),
    stderrTail: () => (lastError ? [lastError] : []),
  };
}

/** `openHop` makes the page of the hop's counts (null: the hop runs without counts, lines only). */
export function startProcessTransport(config: LaunchConfig, openHop: () => ProcessHop | null = openProcessHop): HostTransport {
  const l = new Listeners();
  const cmd = isCompiledBinary() ? [process.execPath, REMOTE_CHILD_ARG] : [process.execPath, CHILD_MAIN];
  let proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  // its own process group, cgroup and owner mark: nothing the plugin starts outlives it (the child takes far longer
  // to start than the prctl takes to apply, so prx is the subreaper before any grandchild can be orphaned)
  void becomeSubreaper();
  const tree = new ProcessTree(`plugin-${config.name}`);
  // the hop's counts in a page both processes map, passed as descriptor 3 (the child closes it before plugin code runs)
  const shared = openHop();
  const env = pluginEnvironment(config, true);
  if (shared) env[REMOTE_HOP_FD_ENV] = "3";
  try {
    proc = Bun.spawn(cmd, {
      cwd: config.entry.slice(0, config.entry.lastIndexOf("/")) || "/",
      env: tree.env(env),
      stdio: shared ? ["pipe", "pipe", "pipe", shared.fd] : ["pipe", "pipe", "pipe"],
      detached: true,
    }) as Bun.Subprocess<"pipe", "pipe", "pipe">;
    tree.adopt(proc.pid);
  } catch (cause) {
    void tree.reap();
    throw new PrxError("PLUGIN_LOAD", `cannot spawn remote plugin ${config.name}: ${(cause as Error).message}`, {
      cause,
    });
  } finally {
    shared?.closeFd();
  }
  const hop = shared?.boxes ?? null;
  const answers = new Linger(hop ? REMOTE_ANSWER_WAIT_US : 0);
  const tail = new TailLines();
  const writer = new BatchedWriter((chunk) => {
    try {
      proc.stdin.write(chunk);
      proc.stdin.flush();
      hop?.toPlugin.posted();
    } catch (error) {
      // the child is gone: its exit is reported through proc.exited
      if (proc.killed || proc.exitCode !== null || proc.signalCode !== null) return;
      // alive but not taking input: said in its stderr's tail, which is reported when it ends
      tail.push(Buffer.from(`\n<prx: writing to the plugin's stdin failed: ${(error as Error).message}>\n`));
    }
  });
  const decoder = new LineDecoder(
    (line) => l.message(line),
    (bytes) => l.refused("oversize", `line of ${bytes} bytes from plugin`, 1),
    undefined,
    (chunk, start, end, count) =>
      l.refused("malformed", () => `not a JSON object: ${previewBytes(chunk, start, end)}`, count),
  );
  const readFailed = (what: string) => (error: unknown) =>
    tail.push(Buffer.from(`\n<prx: reading the plugin's ${what} failed: ${(error as Error).message}>\n`));
  void pumpStream(proc.stdout, (chunk, from, until) => decoder.push(chunk, from, until)).catch(readFailed("stdout"));
  void pumpStream(proc.stderr, (chunk) => (tail.push(chunk), chunk.length)).catch(readFailed("stderr"));
  void proc.exited.then(async (code) => {
    await tree.reap();
    const signal = proc.signalCode;
    l.fireExit(code, signal ? `process killed by ${signal}` : `process exited with code ${code}`);
  });
  return {
    kind: "process",
    pid: proc.pid,
    hop,
    send: (text) => writer.write(text + "\n"),
    expectAnswer: () => {
      // only a child that counts its lines (prx's own launcher, which counts from its first) is watched
      if (!hop) return;
      const seen = hop.toHost.seen();
      if (seen > 0) answers.soon((windowUs) => hop.toHost.linger(seen, windowUs));
    },
    onMessage: (h) => void (l.message = h),
    onRefused: (h) => void (l.refused = h),
    onExit: (h) => l.addExit(h),
    kill: () => {
      proc.kill("SIGKILL");
      void tree.reap();
    },
    stderrTail: () => tail.lines(),
  };
}
