/**
 * A Redis or PostgreSQL server of a test's own, on a random free loopback port, that the test stops and starts again
 * (an outage) without touching the shared servers. Availability follows test/helpers/servers.ts: outside CI a missing
 * binary skips the tests that need it (with one line saying why); in CI it is a failure.
 */
import { test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./wait.ts";

const IN_CI = Boolean(process.env.CI) && process.env.CI !== "0" && process.env.CI !== "false";
export const REDIS_SERVER = process.env.PRX_REDIS_SERVER ?? "/usr/bin/redis-server";
export const PG_BIN = process.env.PRX_PG_BIN ?? "/usr/lib/postgresql/15/bin";
/** The user a throwaway PostgreSQL cluster runs as (initdb refuses root). */
const PG_USER = "postgres";

/** `test`, or `test.skip` outside CI when `binary` is missing (a failure in CI). */
export function testNeedingBinary(binary: string, what: string): typeof test {
  if (existsSync(binary)) return test;
  const line = `${what} (${binary}) is not installed`;
  if (IN_CI) throw new Error(`${line}: CI needs it`);
  console.warn(`SKIP: ${line}; the ${what} outage tests are skipped outside CI`);
  return test.skip;
}

/**
 * The first port the kernel hands out to outgoing connections: a server of a test's own takes a port below it, where
 * no client of another test can be holding it when the server binds (a bind to a port a live connection uses fails).
 */
function ephemeralPortsStart(): number {
  const range = "/proc/sys/net/ipv4/ip_local_port_range";
  // elsewhere: Linux's default start; the range IANA gives (from 49152) starts above it
  if (!existsSync(range)) return 32_768;
  const low = Number(readFileSync(range, "utf8").trim().split(/\s+/)[0]);
  return Number.isInteger(low) && low > 21_000 ? low : 32_768;
}

const OWN_PORTS = { from: 20_000, to: ephemeralPortsStart() };

/** A port below the ephemeral range (20000 up to it) that nothing listens on right now. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = OWN_PORTS.from + Math.floor(Math.random() * (OWN_PORTS.to - OWN_PORTS.from));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
export function listeningOn(port: number, what: string, timeoutMs?: number): Promise<unknown> {
  const probe = () => Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, open: (s) => void s.end() } }).then(() => true, () => false);
  return waitFor(probe, `${what} listening on ${port}`, timeoutMs);
}

export interface OwnServer {
  url: string;
  port: number;
  /** Stop it (SIGKILL for Redis: an outage, not a shutdown; fast shutdown for PostgreSQL). */
  stop(): Promise<void>;
  /** Stop it as a crash would (SIGKILL for Redis, immediate shutdown for PostgreSQL: no goodbye to clients). */
  kill(): Promise<void>;
  /** Freeze it (SIGSTOP): connections stay open and nothing answers, as with a hung server or a dead network path. */
  pause(): void;
  /** Let a paused server go on (SIGCONT). */
  resume(): void;
  /** Start it again on the same port. */
  start(): Promise<void>;
  /** Stop it for good and remove its files. */
  dispose(): Promise<void>;
}

async function answers(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

export async function ownRedis(): Promise<OwnServer> {
  const port = await freePort();
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const server: OwnServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      proc = Bun.spawn([REDIS_SERVER, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdout: "ignore",
        stderr: "ignore",
      });
      await waitFor(() => answers(port), `redis-server on port ${port}`);
    },
    async stop() {
      const running = proc;
      proc = null;
      running?.kill("SIGKILL");
      await running?.exited;
    },
    kill: () => server.stop(),
    pause: () => proc?.kill("SIGSTOP"),
    resume: () => proc?.kill("SIGCONT"),
    dispose: () => server.stop(),
  };
  await server.start();
  return server;
}

function asPostgres(args: string[]): void {
  const run = Bun.spawnSync(["runuser", "-u", PG_USER, "--", ...args], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`${args[0]} failed: ${run.stderr.toString()}`);
}

/** Signal the postmaster of the cluster in `data` and every backend it started. */
function signalCluster(data: string, signal: NodeJS.Signals): void {
  const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
  for (const pid of [postmaster, ...children]) process.kill(pid, signal);
}

/** A throwaway PostgreSQL 15 cluster (trust, database `postgres`) in a temporary directory. */
export async function ownPostgres(): Promise<OwnServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "prx-own-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  asPostgres([join(PG_BIN, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off`;
  const server: OwnServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-l", join(dir, "log"), "-o", options, "start"]);
    },
    async stop() {
      asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]);
    },
    pause: () => signalCluster(data, "SIGSTOP"),
    resume: () => signalCluster(data, "SIGCONT"),
    async kill() {
      asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
    },
    async dispose() {
      if (existsSync(join(data, "postmaster.pid"))) asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
