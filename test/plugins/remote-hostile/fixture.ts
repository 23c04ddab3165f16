/**
 * The hostile remote plugin, written into a plugin directory by the tests and the hostile bench: every attack is an
 * action (a tool) and a route, bounded by its arguments (bytes, MB, ms).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const HOSTILE_NAME = "hostile";

const SOURCE = String.raw`
import { writeSync } from "node:fs";
const MB = 1024 * 1024;
const held = [];

function writeAll(fd, bytes) {
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(fd, bytes, off);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}

/** kind: stdout (garbage lines on fd 1), stderr (raw fd 2), console (console.log), logger (runtime.logger.error). */
function flood(runtime, kind, bytes, lineBytes) {
  const line = "x".repeat(Math.max(0, lineBytes - 1));
  const perChunk = Math.max(1, Math.floor(65536 / lineBytes));
  const chunk = Buffer.from((line + "\n").repeat(perChunk));
  let lines = 0;
  for (let sent = 0; sent < bytes; sent += chunk.length) {
    if (kind === "stdout") writeAll(1, chunk);
    else if (kind === "stderr") writeAll(2, chunk);
    else for (let i = 0; i < perChunk; i++) kind === "console" ? console.log(line) : runtime.logger.error(line);
    lines += perChunk;
  }
  return lines;
}

/**
 * Hold stepMb buffers until mb are held; sync: without ever yielding (a Worker cannot report meanwhile), then spin
 * spinMs more before answering.
 */
async function hog(mb, stepMb, sync, spinMs) {
  for (let got = 0; got < mb; got += stepMb) {
    held.push(Buffer.alloc(stepMb * MB, 1));
    if (!sync) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (spinMs > 0) spin(spinMs);
  return "held " + held.length * stepMb + " MB";
}

function spin(ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
  return "spun " + ms + " ms";
}

const num = (value, fallback) => (value === undefined || value === null || value === "" ? fallback : Number(value));
const attacks = {
  FLOOD: (runtime, o) =>
    "flooded " + flood(runtime, String(o.kind ?? "console"), num(o.bytes, MB), num(o.line, 2)) + " lines",
  HOG: (_runtime, o) => hog(num(o.mb, 64), num(o.step, 16), o.sync === true || o.sync === "1", num(o.spin, 0)),
  SPIN: (_runtime, o) => spin(num(o.ms, 60000)),
  PID: () => String(process.pid),
  WAIT: async (_runtime, o) => (await new Promise((resolve) => setTimeout(resolve, num(o.ms, 1000))), "waited"),
  /** Raw log messages straight onto the wire, past the worker runtime's own budget. */
  LOGRAW: (_runtime, o) => {
    const text = JSON.stringify({ type: "log", level: "error", message: "raw log line" });
    for (let i = 0; i < num(o.n, 1000); i++) {
      if (process.env.PRX_REMOTE_PLUGIN_CHANNEL === "stdio") writeAll(1, Buffer.from(text + "\n"));
      else postMessage(text);
    }
    return "sent";
  },
  /** Last words on raw stderr, then exit. */
  EXIT: (_runtime, o) => {
    writeAll(2, Buffer.from(String(o.words ?? "last words") + "\n"));
    setTimeout(() => process.exit(3), 1);
    return "exiting";
  },
  /**
   * Start three children that would outlive the plugin (a plain child, a setsid one, a double-forked one), answer
   * their pids ("1,2,3"), then (exit=1) exit.
   */
  ESCAPE: (_runtime, o) => {
    const quiet = ["ignore", "ignore", "ignore"];
    const plain = Bun.spawn(["sleep", "623"], { stdio: quiet });
    plain.unref();
    const escaped = Bun.spawnSync(
      ["sh", "-c", "setsid sleep 624 >/dev/null 2>&1 </dev/null & echo $!; (sleep 625 >/dev/null 2>&1 </dev/null & echo $!) &"],
      { stdin: "ignore", stdout: "pipe", stderr: "ignore" },
    );
    const pids = [plain.pid, ...escaped.stdout.toString().trim().split("\n").map(Number)];
    if (o.exit === "1" || o.exit === true) setTimeout(() => process.exit(3), 50);
    return pids.join(",");
  },
  /** One raw protocol line (a log message) nested depth levels in all, straight onto the wire. */
  DEEP: (_runtime, o) => {
    const levels = Math.max(0, num(o.depth, 100000) - 2);
    const text = '{"type":"log","level":"error","message":"deep","fields":{"d":' + "[".repeat(levels) + "]".repeat(levels) + "}}";
    if (process.env.PRX_REMOTE_PLUGIN_CHANNEL === "stdio") writeAll(1, Buffer.from(text + "\n"));
    else postMessage(text);
    return "sent";
  },
  /** A handler result nested depth levels (the worker runtime encodes it). */
  DEEPRESULT: (_runtime, o) => JSON.parse("[".repeat(num(o.depth, 100)) + "]".repeat(num(o.depth, 100))),
  NOOP: () => "ok",
  /**
   * runtime.getCache in a tight loop, par calls at a time, until n calls, ms milliseconds, or (refused > 0) that many
   * refusals; answers the counts and the first refusal's code and message as JSON.
   */
  HOSTCALLS: async (runtime, o) => {
    const n = num(o.n, 100000), ms = num(o.ms, 600000), stopAt = num(o.refused, 0), par = num(o.par, 1);
    const end = Date.now() + ms;
    const out = { ok: 0, refused: 0, other: 0, code: null, message: null };
    let sent = 0;
    const loop = async () => {
      while (sent < n && Date.now() < end && !(stopAt > 0 && out.refused >= stopAt)) {
        sent++;
        try {
          await runtime.getCache("k");
          out.ok++;
        } catch (error) {
          if (error.code !== "RATE_LIMITED") out.other++;
          else if (out.refused++ === 0) [out.code, out.message] = [error.code, error.message];
        }
      }
    };
    await Promise.all(Array.from({ length: par }, loop));
    return JSON.stringify(out);
  },
};

export default {
  name: "${HOSTILE_NAME}",
  description: "misbehaves on request",
  actions: Object.entries(attacks).map(([name, run]) => ({
    name,
    description: "hostile " + name,
    handler: async (runtime, _message, _state, options) => run(runtime, options ?? {}),
  })),
  routes: [
    ...Object.entries(attacks).map(([name, run]) => ({
      type: "GET",
      path: "/" + name.toLowerCase(),
      handler: async (req, _res, runtime) => ({ result: await run(runtime, req.query ?? {}) }),
    })),
    { type: "POST", path: "/echo", handler: async (req) => ({ echoed: req.body }) },
  ],
};
`;

export interface HostileOptions {
  transport: "worker" | "process";
  rpcTimeoutMs?: number;
  maxMemoryMb?: number;
  /** More `[resources]` keys of its plugin.toml (e.g. max_host_calls_per_second). */
  resources?: Record<string, number>;
}

/** Write the hostile plugin into `pluginsDir/hostile`; returns its directory and entry file. */
export function writeHostilePlugin(pluginsDir: string, options: HostileOptions): { dir: string; entry: string } {
  const dir = join(pluginsDir, HOSTILE_NAME);
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, "worker.js");
  writeFileSync(entry, SOURCE);
  const limits = { ...(options.maxMemoryMb === undefined ? {} : { max_memory_mb: options.maxMemoryMb }), ...options.resources };
  const lines = Object.entries(limits).map(([key, value]) => `${key} = ${value}\n`);
  const resources = lines.length === 0 ? "" : `\n[resources]\n${lines.join("")}`;
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "${HOSTILE_NAME}"\nversion = "0.1.0"\nruntime = "remote"\n${resources}\n[remote]\n` +
      `entry = "worker.js"\ntransport = "${options.transport}"\nrpc_timeout_ms = ${options.rpcTimeoutMs ?? 30_000}\n`,
  );
  return { dir, entry };
}
