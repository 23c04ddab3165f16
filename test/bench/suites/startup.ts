/**
 * Start-up against Bun's floor, each pair alternating in one run (targets are ratios; absolute times move 2-3x
 * between machines):
 * - `prx --version` and `prx --help` against a compiled `console.log("hello")`: <= 1.5x;
 * - `prx gateway` launch -> first 200 on /health against a compiled Bun.serve hello launch -> first 200: <= 3x;
 *   idle RSS 3 s after that first 200, same pair: <= 1.8x; and, without a target, the RSS 3 s after a first turn
 *   (an idle gateway with nothing to load starts its plugin runtime on first use);
 * - one offline `prx agent -m` turn (launch -> exit) against the compiled hello: <= 4x;
 * - a channel process (`prx channel run`, Telegram against a fake Bot API) launch -> its "running" line, against
 *   the compiled hello launch -> its line (no target);
 * - each kept start-up trick (src/boot/tricks.ts) with and without it, alternating: what it buys.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { START_TRICKS, type StartTrick } from "../../../src/boot/tricks.ts";
import { startFakeTelegram } from "../../fakes/telegram-server.ts";
import { alternate, buildFloors, freshCopy } from "../floors.ts";
import type { BenchRow, BenchSuite } from "../types.ts";

let CLI_PAIRS = 20;
let GATEWAY_PAIRS = 12;
let RSS_PAIRS = 3;
let IDLE_MS = 3000;
let AGENT_PAIRS = 12;
let CHANNEL_PAIRS = 10;
/** Pairs per measure of a trick's gain, with and without it. */
let TRICK_PAIRS = 6;
let TRICK_RSS_PAIRS = 3;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { CLI_PAIRS: 3, GATEWAY_PAIRS: 2, RSS_PAIRS: 1, IDLE_MS: 500, AGENT_PAIRS: 2, CHANNEL_PAIRS: 2, TRICK_PAIRS: 1, TRICK_RSS_PAIRS: 1 };
/** Between health polls: short enough not to hide a fast start, long enough not to starve it of CPU (2 cores). */
const POLL_MS = 0.5;

function env(tmp: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp, ...extra };
}

/** Launch -> exit, in ms; a failing command fails the suite. */
async function run(argv: string[], tmp: string): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { env: env(tmp), stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${await new Response(proc.stderr).text()}`);
  return ms;
}

/** Launch -> the first stdout line containing `ready`, in ms; the process is then stopped. */
async function toLine(argv: string[], ready: string, environment: Record<string, string>): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { env: environment, stdout: "pipe", stderr: "inherit" });
  const decoder = new TextDecoder();
  let seen = "";
  for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
    seen += decoder.decode(chunk, { stream: true });
    if (seen.includes(ready)) break;
  }
  const ms = performance.now() - started;
  proc.kill("SIGTERM");
  await proc.exited;
  if (!seen.includes(ready)) throw new Error(`${argv.join(" ")} ended before printing "${ready}": ${seen}`);
  return ms;
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.replace(/\D+/g, "")) / 1024;
}

/**
 * Launch -> first 200 on /health (ms); with `idle`, also the RSS `idle` ms after it (MB), or after `use` (a first turn)
 * when given. With `path`, launch -> the first answer of any status on that path instead.
 */
async function serveStart(
  argv: (port: number) => string[],
  tmp: string,
  idle = 0,
  use?: (port: number) => Promise<void>,
  path?: string,
): Promise<{ ms: number; rss: number }> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn(argv(port), { env: env(tmp), stdout: "ignore", stderr: "ignore" });
  try {
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}${path ?? "/health"}`).then(
        (r) => r.status,
        () => 0,
      );
      if (path ? status !== 0 : status === 200) break;
      if (proc.exitCode !== null) throw new Error(`${argv(port).join(" ")} exited ${proc.exitCode} before answering`);
      await Bun.sleep(POLL_MS);
    }
    const ms = performance.now() - started;
    await use?.(port);
    if (idle > 0) await Bun.sleep(idle);
    return { ms, rss: idle > 0 ? rssMb(proc.pid) : 0 };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

const suite: BenchSuite = async ({ root, binary: built, tmp, quick }) => {
  if (quick) ({ CLI_PAIRS, GATEWAY_PAIRS, RSS_PAIRS, IDLE_MS, AGENT_PAIRS, CHANNEL_PAIRS, TRICK_PAIRS, TRICK_RSS_PAIRS } = QUICK);
  const rows: BenchRow[] = [];
  const floors = await buildFloors(tmp);
  const binary = freshCopy(built, tmp, "prx");
  const hello = () => run([floors.hello], tmp);
  const ratioRow = (name: string, floorName: string, paired: { a: number; b: number; ratio: number }, target: number, unit: "ms" | "MB" = "ms") =>
    rows.push({
      suite: "startup",
      name,
      value: paired.a,
      unit,
      floor: { name: floorName, value: paired.b, ratio: paired.ratio },
      target: { op: "<=", value: target, ratio: true },
    });

  for (const flag of ["--version", "--help"]) {
    const paired = await alternate(CLI_PAIRS, () => run([binary, flag], tmp), hello);
    ratioRow(`prx ${flag} (median of ${CLI_PAIRS})`, "compiled hello", paired, 1.5);
  }

  writeFileSync(join(tmp, "config.toml"), 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n');
  const gateway = (port: number) => [binary, "gateway", "--port", String(port), "-w", tmp];
  const serveHello = (port: number) => [floors.serveHello, String(port)];
  const start = await alternate(
    GATEWAY_PAIRS,
    async () => (await serveStart(gateway, tmp)).ms,
    async () => (await serveStart(serveHello, tmp)).ms,
  );
  ratioRow(`prx gateway launch -> first 200 on /health (median of ${GATEWAY_PAIRS})`, "compiled Bun.serve hello", start, 3);
  const idle = await alternate(
    RSS_PAIRS,
    async () => (await serveStart(gateway, tmp, IDLE_MS)).rss,
    async () => (await serveStart(serveHello, tmp, IDLE_MS)).rss,
    0,
  );
  ratioRow(`prx gateway idle RSS ${IDLE_MS / 1000} s after start`, "compiled Bun.serve hello", idle, 1.8, "MB");

  // The same gateway once used: an idle gateway with nothing to load has not started its plugin runtime (it waits
  // for the first turn or plugin request). No target: what users see after their first message.
  const used = join(tmp, "used");
  mkdirSync(used, { recursive: true });
  writeFileSync(join(used, "config.toml"), 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n[gateway]\nrequire_pairing = false\n');
  const firstTurn = async (port: number) => {
    const reply = await fetch(`http://127.0.0.1:${port}/api/sessions/bench/message`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hello" }),
    });
    if (reply.status !== 200) throw new Error(`the first turn answered ${reply.status}: ${await reply.text()}`);
  };
  const afterTurn = await alternate(
    RSS_PAIRS,
    async () => (await serveStart((port) => [binary, "gateway", "--port", String(port), "-w", used], used, IDLE_MS, firstTurn)).rss,
    async () => (await serveStart(serveHello, tmp, IDLE_MS)).rss,
    0,
  );
  rows.push({
    suite: "startup",
    name: `prx gateway RSS ${IDLE_MS / 1000} s after a first turn`,
    value: afterTurn.a,
    unit: "MB",
    floor: { name: "compiled Bun.serve hello", value: afterTurn.b, ratio: afterTurn.ratio },
    note: "plugin runtime loaded",
  });

  const turn = await alternate(AGENT_PAIRS, () => run([binary, "agent", "-w", tmp, "-m", "hello"], tmp), hello);
  ratioRow(`prx agent -m, one offline turn (median of ${AGENT_PAIRS})`, "compiled hello", turn, 4);

  const tg = startFakeTelegram();
  try {
    writeFileSync(
      join(tmp, "config.toml"),
      'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n' +
        `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\ndm_policy = "open"\n`,
    );
    const channel = await alternate(
      CHANNEL_PAIRS,
      () => toLine([binary, "channel", "run", "tg", "-w", tmp], "running", env(tmp, { TG_TOKEN: tg.token })),
      () => toLine([floors.hello], "hello", env(tmp)),
    );
    rows.push({
      suite: "startup",
      name: `prx channel run (Telegram) launch -> running (median of ${CHANNEL_PAIRS})`,
      value: channel.a,
      unit: "ms",
      floor: { name: "compiled hello", value: channel.b, ratio: channel.ratio },
    });
  } finally {
    await tg.stop();
  }
  // A build trick is measured against a whole binary built without it: the short pass leaves those out.
  for (const trick of START_TRICKS.filter((t) => !(quick && t.build))) rows.push(...(await trickRows(trick, { binary, tmp, root })));
  return rows;
};

/** A route of the app (it answers 401 without a token): its first answer needs the app built. */
const APP_ROUTE = "/api/status";

const OFFLINE = 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n';

/** A row of what `trick` buys: the measure with it against the same measure without it (the "floor"). */
function gainRow(trick: StartTrick, measure: string, paired: { a: number; b: number; ratio: number }, unit: "ms" | "MB"): BenchRow {
  const gain = paired.b - paired.a;
  return {
    suite: "startup",
    name: `trick ${trick.name}: ${measure}, buys ${gain.toFixed(1)} ${unit}`,
    value: paired.a,
    unit,
    floor: { name: "without it", value: paired.b, ratio: paired.ratio },
    note: trick.buys,
  };
}

/**
 * What one kept trick buys, with and without it in alternation: a build trick against a binary built without it
 * (`PRX_BUILD_WITHOUT`), the config cache against starts whose cache file was removed, the plugins at rest against a
 * workspace with an entry in plugins/, the health before the app against the first answer of a route of the app
 * (which builds it, as a start without the trick would before listening).
 */
async function trickRows(trick: StartTrick, ctx: { binary: string; tmp: string; root: string }): Promise<BenchRow[]> {
  const dir = join(ctx.tmp, `trick-${trick.name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.toml"), OFFLINE);
  const gateway = (binary: string, workspace: string) => (port: number) => [binary, "gateway", "--port", String(port), "-w", workspace];
  if (trick.build) {
    const without = join(dir, "prx");
    const build = Bun.spawn([process.execPath, join(ctx.root, "build.ts")], {
      env: { ...process.env, PRX_BUILD_WITHOUT: trick.build, PRX_BUILD_OUT: without },
      stdout: "ignore",
      stderr: "pipe",
    });
    if ((await build.exited) !== 0) throw new Error(`building without ${trick.build} failed: ${await new Response(build.stderr).text()}`);
    const withIt = freshCopy(ctx.binary, dir, "prx-with");
    const withoutIt = freshCopy(without, dir, "prx-without");
    const rss = await alternate(
      TRICK_RSS_PAIRS,
      async () => (await serveStart(gateway(withIt, dir), dir, IDLE_MS)).rss,
      async () => (await serveStart(gateway(withoutIt, dir), dir, IDLE_MS)).rss,
      0,
    );
    const start = await alternate(
      TRICK_PAIRS,
      async () => (await serveStart(gateway(withIt, dir), dir)).ms,
      async () => (await serveStart(gateway(withoutIt, dir), dir)).ms,
    );
    const turn = await alternate(
      TRICK_PAIRS,
      () => run([withIt, "agent", "-w", dir, "-m", "hello"], dir),
      () => run([withoutIt, "agent", "-w", dir, "-m", "hello"], dir),
    );
    return [
      gainRow(trick, "gateway idle RSS", rss, "MB"),
      gainRow(trick, "gateway launch -> first 200", start, "ms"),
      gainRow(trick, "prx agent -m, one offline turn", turn, "ms"),
    ];
  }
  if (trick.name === "config-cache") {
    const agent = (before?: () => void) => () => {
      before?.();
      return run([ctx.binary, "agent", "-w", dir, "-m", "hello"], dir);
    };
    const turn = await alternate(TRICK_PAIRS, agent(), agent(() => rmSync(join(dir, "cache", "config.json"), { force: true })));
    return [gainRow(trick, "prx agent -m, one offline turn", turn, "ms")];
  }
  if (trick.name === "plugins-at-rest") {
    const loading = join(dir, "loading");
    // an entry in plugins/ without a manifest: refused, but the plugin runtime starts to say so
    mkdirSync(join(loading, "plugins", "unfinished"), { recursive: true });
    writeFileSync(join(loading, "config.toml"), OFFLINE);
    const rss = await alternate(
      TRICK_RSS_PAIRS,
      async () => (await serveStart(gateway(ctx.binary, dir), dir, IDLE_MS)).rss,
      async () => (await serveStart(gateway(ctx.binary, loading), loading, IDLE_MS)).rss,
      0,
    );
    return [gainRow(trick, "gateway idle RSS", rss, "MB")];
  }
  if (trick.name === "health-before-app") {
    const appRoute = async (port: number) => void (await fetch(`http://127.0.0.1:${port}${APP_ROUTE}`)).arrayBuffer();
    const start = await alternate(
      TRICK_PAIRS,
      async () => (await serveStart(gateway(ctx.binary, dir), dir)).ms,
      async () => (await serveStart(gateway(ctx.binary, dir), dir, 0, undefined, APP_ROUTE)).ms,
    );
    const rss = await alternate(
      TRICK_RSS_PAIRS,
      async () => (await serveStart(gateway(ctx.binary, dir), dir, IDLE_MS)).rss,
      async () => (await serveStart(gateway(ctx.binary, dir), dir, IDLE_MS, appRoute)).rss,
      0,
    );
    return [gainRow(trick, `gateway launch -> first answer (/health, against ${APP_ROUTE})`, start, "ms"), gainRow(trick, "gateway idle RSS", rss, "MB")];
  }
  throw new Error(`the startup suite does not know how to measure trick ${trick.name}`);
}

export default suite;
