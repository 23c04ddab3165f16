import { PrxError } from "../core/errors.ts";

/**
 * The start-up tricks prx keeps, each because `bun run bench startup` measures that it buys at least
 * MIN_START_GAIN_MS of start or MIN_IDLE_GAIN_MB of idle RSS (the suite measures each one again, with and without it,
 * and prints a row per trick). Anything else about start-up is plain: open the host, build the app, listen
 * (gateway.ts). Figures: with and without, in alternation, in one `bun run bench startup` on the 2-core VM while
 * other jobs loaded it (load average 15-25, a compiled hello took 15-40 ms against ~5 quiet), so the times are
 * several times a quiet machine's; the ratios and MB are what to read.
 *
 * Measured and gone: the JIT policy (start-up in the interpreter until 1 s, `jitPolicy: 1000`) bought, over four
 * runs, 0.1-1.5 MB of idle gateway RSS (median 0.9), between 37 and -14 ms of gateway launch (median -1) and between
 * 12 and -5 ms of `prx agent -m` (median -4.5); a full GC with Bun.shrink 1 s after start bought 0.3-0.5 MB; the host
 * opened 25 ms after listening and the plugins 25 ms after serving, with event-loop yields between, went with the
 * listener that answered before the host was open. One event-loop turn after listening, before the optional parts
 * (plugin runtime, channel processes, cron runner, config watch) so that a waiting health check is answered first,
 * bought 2.3 ms of the gateway's main-thread CPU to its first 200 (64.1 against 66.4 ms, 30 pairs at load 17), none
 * of its CPU over all threads (96.4 against 96.2) and launch -> first 200 within the noise (medians -16.6 to +10.3 ms
 * over 40 and 100 pairs at load 4-13). The binary built without code splitting (one module for the whole program,
 * its dynamic imports inlined) took twice the gateway's main-thread CPU to its first 200 (44.6-45.7 against
 * 21.0-23.2 ms, three rounds of 10 pairs at load 10): a start loads only the chunks its commands import.
 */
export const MIN_START_GAIN_MS = 2;
export const MIN_IDLE_GAIN_MB = 1;

/** A trick build.ts can leave out (`PRX_BUILD_WITHOUT=<name>,...`), so the bench can measure what it buys. */
export type BuildTrick = "bytecode-order" | "tools-at-rest" | "answer-first";

export interface StartTrick {
  name: string;
  /** Where it is done. */
  where: string;
  /** What it buys, as measured. */
  buys: string;
  /** Set for a trick of the build: the bench builds a binary without it. */
  build?: BuildTrick;
}

export const START_TRICKS: readonly StartTrick[] = [
  {
    name: "health-before-app",
    where: "boot/health-before-app.ts, gateway/server.ts (`beforeApp`)",
    buys:
      "gateway launch -> first answer 210 -> 97, 138 -> 66 and 122 -> 44 ms (x0.36-0.54), idle RSS -4.9 to -9.2 MB: " +
      "Elysia, TypeBox and the route groups load with the first request past /health (the app built before listening: x8.4 " +
      "of a compiled Bun.serve to the first 200, against x4.4 with this)",
  },
  {
    name: "answer-first",
    where: "boot/answer-first.ts, boot/gateway.ts (`first.answered()`), build.ts (`PRX_BUILD_WITHOUT=answer-first`)",
    buys:
      "the channel processes, the cron runner's job count and the config watch (fs.watch and its thread) start after " +
      "the gateway's first answer, or FIRST_ANSWER_WAIT_MS after listening: a waiting health check is answered by a " +
      "main thread with nothing else to do. Outside the suite on the 2-core VM, a workspace with a token (as the " +
      "gateway suite's), alternated pairs against a binary without it or main's: launch -> first 200 78.2 against " +
      "82.4 ms (30 pairs, load 3.6), 89.2 against 96.8 (30, load 5), 71.5 against 79.3 (20, load 6), 118.8 against " +
      "128.2 (30, load 10-12), pairwise x0.93-0.95; listening -> first 200 7.5-12.6 against 10.2-16.0 ms; main-thread " +
      "CPU to that answer -1.4 to -3.7 ms. A workspace with no token (the startup suite's: the pairing code it writes " +
      "after listening still comes first) x1.00 (30 pairs, load 8.5). In one `bun run bench startup` at load 8-13 " +
      "(a compiled hello took 93 ms against ~24 quiet) its row read 161 against 119 ms over 6 pairs: within that " +
      "run's noise",
    build: "answer-first",
  },
  {
    name: "bytecode-order",
    where: "boot/start-profile.ts, build.ts (two builds, `bytecodeOrder`)",
    buys:
      "idle gateway RSS -8.4 and -8.5 MB in two whole bench runs (on two VMs), where gateway launch took +5.2 and " +
      "+5.8 ms and `prx agent -m` +2.5 and +5.5 ms; measured again outside the suite, with and without in alternation " +
      "(20 pairs, load 2.5): gateway launch -> first 200 -6.0 and -11.1 ms (x0.88-0.90), its CPU to that answer 74.7 " +
      "against 87.3 ms, `prx agent -m` wall x0.99, peak -4.1 MB; idle RSS -2.1 MB in 5 pairs (43.9 against 46.0; " +
      "x1.72 of a compiled Bun.serve without it, target x1.8); on a VM kind where a compiled hello starts in 5-8 ms, " +
      "outside the suite: `prx agent -m` wall x0.98-1.01 (4 rounds of 20 pairs), gateway launch -> first 200 31.3 " +
      "against 32.0 ms (medians of 40 alternated), idle RSS -3.5 MB (43.7 against 47.3, 5 pairs)",
    build: "bytecode-order",
  },
  {
    name: "config-cache",
    where: "config/cache.ts (read by every command that opens a workspace)",
    buys: "`prx agent -m` one offline turn 158 -> 108 ms (x0.51), 99 -> 68 ms (x0.53), 508 -> 165 ms (x0.29) in three runs",
  },
  {
    name: "tools-at-rest",
    where:
      "tools/builtins/catalog.ts (the specs the binary carries, build.ts), tools/registry.ts (the result check): " +
      "the built-in tools, their zod schemas and zod itself load with the first tool call",
    buys:
      "in three runs: `prx agent -m` one offline turn -17.1 to -27.9 ms (x0.74-0.84), gateway launch -> first 200 " +
      "-15 to -25 ms (x0.81-0.84; the most loaded run within its noise), idle gateway RSS -3.9 to -4.9 MB",
    build: "tools-at-rest",
  },
  {
    name: "plugins-at-rest",
    where: "boot/gateway.ts (pluginsAtRest): nothing to load, the plugin runtime starts on first use",
    buys: "idle gateway RSS -4.3 to -8.1 MB in four runs (50.8 -> 42.7 MB in the last)",
  },
];

/** The build tricks named in `PRX_BUILD_WITHOUT` (comma-separated), checked against START_TRICKS. */
export function buildTricksWithout(value: string | undefined): Set<BuildTrick> {
  const known = new Set(START_TRICKS.flatMap((trick) => (trick.build ? [trick.build] : [])));
  const without = new Set<BuildTrick>();
  for (const name of (value ?? "").split(",").map((part) => part.trim()).filter(Boolean)) {
    if (!known.has(name as BuildTrick)) {
      const hint = `known: ${[...known].join(", ")}`;
      throw new PrxError("USAGE", `PRX_BUILD_WITHOUT: unknown build trick '${name}'`, { hint });
    }
    without.add(name as BuildTrick);
  }
  return without;
}

/**
 * The tricks of a channel process (`prx channel run`, also as the gateway's supervised child): the channels suite's
 * "channel process RSS / gateway idle RSS" rows measure them (a process after 100-220 sequential turns, ~1 s after
 * the last), its burst rows the busy case. Figures: a Telegram channel after 200 turns of a fake platform and provider,
 * 1.5 s after the last reply, in alternation with and without, on the 2-core VM while other jobs loaded it.
 */
export const CHANNEL_TRICKS: readonly StartTrick[] = [
  {
    name: "channel-jit",
    where: "boot/channel-jit.ts, cli/channel.ts, channels/runner.ts (onInFlight)",
    buys:
      "RSS 70.9-71.7 -> 58.0-59.3 MB (-12 MB: the JIT's compilers' pages and output), 54.3 against 59.6 MB right after " +
      "start, CPU for the 200 turns 1.10-1.14 against 1.36 s; inbound-to-reply overhead p50 within the noise (2.6-3.7 " +
      "against 3.5-5.8 ms in slack, matrix, discord, webhook). Busy (1,000 msg/s bursts over 100 chats) it switches to " +
      "the normal JIT (kept reluctant there, bursts took ~15% more CPU); with the switch, 3 bursts of 1,000 in alternation: " +
      "416-530 against 453-551 msg/s, CPU per burst 1.9-2.3 s either way, RSS 77-82 against 84-105 MB. In one " +
      "`bun run bench channels` with both tricks: every non-email channel 53.6-59.4 MB (x1.22-1.35 of a 44.1 MB idle " +
      "gateway), where the record had 64.3-71.2 MB",
  },
  {
    name: "channel-idle-gc",
    where: "boot/channel-idle-gc.ts, cli/channel.ts",
    buys: "RSS 59.0-59.3 -> 56.7-57.0 MB 1 s after the last turn (-2.3 MB), for 8-15 ms of CPU once per quiet period",
  },
  {
    name: "channel-pageout",
    where: "boot/channel-pageout.ts, cli/channel.ts (at the idle collection of the first two quiet periods)",
    buys:
      "an email channel process (IMAP IDLE and SMTP over STARTTLS against Dovecot) after 33-43 turns, six runs each " +
      "in alternation (load 2-14): RSS 63.7-64.3 -> 45.5-45.7 MB (x1.54-1.62 -> x1.10-1.18 of an idle gateway). " +
      "The binary's pages resident after 15 turns 48.6 -> 26.0 MB " +
      "(native code 32.7 -> 18.5, bytecode 9.6 -> 3.9, read-only data 6.3 -> 3.6): what only start-up and the first " +
      "turn read; the heap and allocator (~17-18 MB) are as before. 15 turns in a held process 67.2-67.7 " +
      "-> 44.7-45.3 MB. Costs once: the next turn reads back what it uses (~600 more minor and ~30 major page faults, " +
      "tens of ms of CPU on the loaded VM), the turn after ~200 and 7; then none. Under a gateway the pages the gateway " +
      "maps too are shared and stay (the kernel reclaims only pages this process alone maps): a supervised email child " +
      "after 15 turns 60.2 -> 54.2 MB in one run",
  },
];
