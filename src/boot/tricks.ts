import { PrxError } from "../core/errors.ts";

/**
 * The start-up tricks prx keeps, each because `bun run bench startup` measures that it buys at least
 * MIN_START_GAIN_MS of start or MIN_IDLE_GAIN_MB of idle RSS (the suite measures each one again, with and without it,
 * and prints a row per trick). Anything else about start-up is plain: open the host, build the app, listen
 * (gateway.ts). Figures: A/B in alternation on the 2-core VM while other jobs loaded it (load average 15-25), so
 * absolute times are 3-7x a quiet machine's; the ratios and MB are what to read.
 */
export const MIN_START_GAIN_MS = 2;
export const MIN_IDLE_GAIN_MB = 1;

/** A trick build.ts can leave out (`PRX_BUILD_WITHOUT=<name>,...`), so the bench can measure what it buys. */
export type BuildTrick = "jit-policy" | "bytecode-order";

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
      "gateway launch -> first 200 on /health x8.42 -> x4.35 of a compiled Bun.serve (260 -> 122 ms); idle RSS 47.5 -> 42.9 MB " +
      "(Elysia, TypeBox and the route groups load with the first request past /health)",
  },
  {
    name: "jit-policy",
    where: "boot/jit-policy.ts, build.ts (`jitPolicy`), cli/main.ts",
    buys: "idle gateway RSS 52.4 -> 47.4 MB (-5.1 MB); its launch time moved within the noise",
    build: "jit-policy",
  },
  {
    name: "bytecode-order",
    where: "boot/start-profile.ts, build.ts (two builds, `bytecodeOrder`)",
    buys: "idle gateway RSS 50.4 -> 47.3 MB (-3.2 MB)",
    build: "bytecode-order",
  },
  {
    name: "config-cache",
    where: "config/cache.ts (read by every command that opens a workspace)",
    buys: "`prx agent -m` one offline turn 255 -> 124 ms (x0.48), x8.4 -> x4.1 of a compiled hello",
  },
  {
    name: "plugins-at-rest",
    where: "boot/gateway.ts (pluginsAtRest): nothing to load, the plugin runtime starts on first use",
    buys: "idle gateway RSS 50.1 -> 47.4 MB (-2.7 MB)",
  },
];

/** The build tricks named in `PRX_BUILD_WITHOUT` (comma-separated), checked against START_TRICKS. */
export function buildTricksWithout(value: string | undefined): Set<BuildTrick> {
  const known = new Set(START_TRICKS.flatMap((trick) => (trick.build ? [trick.build] : [])));
  const without = new Set<BuildTrick>();
  for (const name of (value ?? "").split(",").map((part) => part.trim()).filter(Boolean)) {
    if (!known.has(name as BuildTrick)) throw new PrxError("USAGE", `PRX_BUILD_WITHOUT: unknown build trick '${name}'`, { hint: `known: ${[...known].join(", ")}` });
    without.add(name as BuildTrick);
  }
  return without;
}
