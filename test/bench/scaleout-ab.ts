/**
 * The load of `bench scaleout` (concurrency 16 over 64 sessions, PostgreSQL storage and memory, Redis bus) against two
 * binaries in alternating rounds: gateway CPU per turn, all threads and the main thread alone, at each replica count.
 *   bun test/bench/scaleout-ab.ts <binary A> <binary B> [--replicas 1,3] [--rounds 2] [--turns 1000] [--warmup 500]
 *     [--paired]  (both binaries' replicas at once, each with its own client at concurrency 16: the same machine
 *                  load for both; warmed together, then --rounds measurements side by side)
 *     [--settle]  (warm up in blocks of --warmup turns a replica until the JIT threads settle, jit-settle.ts)
 *     [--prof DIR]  (the replicas of the last round of B run with --cpu-prof, profiles written to DIR)
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { replicaWorkspace, removeWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../helpers/replicas.ts";
import { dropKeys, dropSchema, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { startStandaloneFake } from "./announce.ts";
import { driveTurns } from "./scaleout-drive.ts";
import { describeWarmup, jitCpuUs, warmUntilJitSettles } from "./jit-settle.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    replicas: { type: "string", default: "1,3" },
    rounds: { type: "string", default: "2" },
    turns: { type: "string", default: "1000" },
    warmup: { type: "string", default: "500" },
    prof: { type: "string" },
    settle: { type: "boolean", default: false },
    paired: { type: "boolean", default: false },
  },
});
const binaries = positionals;
const counts = values.replicas!.split(",").map(Number);
const ROUNDS = Number(values.rounds);
const TURNS = Number(values.turns);
const WARMUP = Number(values.warmup);

/** CPU seconds by thread name, summed over the processes. */
function threads(pids: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = tid === String(pid) ? "main" : readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/[0-9]+$/, "#");
        out.set(name, (out.get(name) ?? 0) + ticks(`/proc/${pid}/task/${tid}/stat`));
      } catch {
        continue; // the thread ended between the listing and the read
      }
    }
  }
  return out;
}

function ticks(path: string): number {
  const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

type Proc = Replica;

/** A replica of `binary` (quiet; `prof`: with --cpu-prof, its profile written there; REPLICA_ENV_* passed on). */
function start(binary: string, dir: string, prof?: string): Promise<Proc> {
  const env: Record<string, string> = {
    PRX_LOG: "silent",
    // REPLICA_ENV_<NAME>=value: NAME=value in each replica's environment (a runtime setting tried out)
    ...Object.fromEntries(
      Object.entries(process.env)
        .filter(([name]) => name.startsWith("REPLICA_ENV_"))
        .map(([name, value]) => [name.slice("REPLICA_ENV_".length), value ?? ""]),
    ),
    ...(prof ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${prof}` } : {}),
  };
  return startReplica(dir, env, binary);
}


const fake = await startStandaloneFake(0);
const results: Record<string, number[][]> = {};

interface Side {
  binary: string;
  schema: string;
  /** Its replicas' Redis key prefix (rate limits, the bus): its keys are deleted at the end. */
  prefix: string;
  token: string;
  replicas: Proc[];
  dirs: string[];
}

async function paired(count: number): Promise<void> {
  const sides: Side[] = [];
  try {
    for (const binary of binaries) {
      const schema = uniqueSchema(`ab${count}`);
      const side: Side = { binary, schema, prefix: uniquePrefix(`ab${count}`), token: await sharedToken(schema), replicas: [], dirs: [] };
      sides.push(side);
      const config = sharedConfig(fake.url, schema, side.prefix);
      for (let i = 0; i < count; i++) {
        const dir = replicaWorkspace(config);
        side.dirs.push(dir);
        side.replicas.push(await start(binary, dir));
      }
    }
    const pids = sides.flatMap((side) => side.replicas.map((r) => r.proc.pid));
    const both = async (turns: number) => void (await Promise.all(sides.map((side) => driveTurns(side.replicas, side.token, turns))));
    if (values.settle) {
      const warmup = await warmUntilJitSettles(pids[0]!, async () => (await both(WARMUP * count), WARMUP * count * sides.length), () =>
        pids.reduce((sum, pid) => sum + (jitCpuUs(pid) ?? 0), 0),
      );
      console.log(`replicas ${count}: ${describeWarmup(warmup)}`);
    } else await both(WARMUP * count);
    for (let round = 0; round < ROUNDS; round++) {
      await Bun.sleep(300);
      const load0 = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
      const before = sides.map((side) => ({
        all: side.replicas.map((r) => ticks(`/proc/${r.proc.pid}/stat`)),
        main: side.replicas.map((r) => ticks(`/proc/${r.proc.pid}/task/${r.proc.pid}/stat`)),
        threads: threads(side.replicas.map((r) => r.proc.pid)),
      }));
      await both(TURNS * count);
      const line = sides.map((side, k) => {
        const perTurn = (x: number) => (x * 1000) / (TURNS * count);
        const all = perTurn(side.replicas.reduce((sum, r, i) => sum + ticks(`/proc/${r.proc.pid}/stat`) - before[k]!.all[i]!, 0));
        const main = perTurn(side.replicas.reduce((sum, r, i) => sum + ticks(`/proc/${r.proc.pid}/task/${r.proc.pid}/stat`) - before[k]!.main[i]!, 0));
        const other = [...threads(side.replicas.map((r) => r.proc.pid))]
          .map(([name, t]) => [name, perTurn(t - (before[k]!.threads.get(name) ?? 0))] as const)
          .filter(([name, ms]) => name !== "main" && ms >= 0.005)
          .map(([name, ms]) => `${name} ${ms.toFixed(3)}`)
          .join(", ");
        (results[`${count} ${side.binary}`] ??= []).push([all, main, 0]);
        return `${side.binary} ${all.toFixed(3)} (main ${main.toFixed(3)}; ${other})`;
      });
      console.log(`round ${round} replicas ${count}, load ${load0}: ${line.join(" | ")}`);
    }
  } finally {
    for (const side of sides) {
      for (const r of side.replicas) await r.kill();
      for (const d of side.dirs) removeWorkspace(d);
      await dropSchema(side.schema);
      await dropKeys(side.prefix);
    }
  }
}

try {
  if (values.paired) for (const count of counts) await paired(count);
  for (let round = 0; round < (values.paired ? 0 : ROUNDS); round++) {
    for (const count of counts) {
      const order = round % 2 === 0 ? binaries : [...binaries].reverse();
      for (const binary of order) {
        const prof = values.prof && round === ROUNDS - 1 && binary === binaries.at(-1) ? `${values.prof}/${count}` : undefined;
        const schema = uniqueSchema(`ab${count}`);
        const token = await sharedToken(schema);
        const prefix = uniquePrefix(`ab${count}`);
        const config = sharedConfig(fake.url, schema, prefix);
        const replicas: Proc[] = [];
        const dirs: string[] = [];
        try {
          for (let i = 0; i < count; i++) {
            const dir = replicaWorkspace(config);
            dirs.push(dir);
            replicas.push(await start(binary, dir, prof));
          }
          const warmup = values.settle
            ? await warmUntilJitSettles(replicas[0]!.proc.pid, async () => (await driveTurns(replicas, token, WARMUP * count), WARMUP * count), () =>
                replicas.reduce((sum, r) => sum + (jitCpuUs(r.proc.pid) ?? 0), 0),
              )
            : null;
          if (!warmup) await driveTurns(replicas, token, WARMUP * count);
          await Bun.sleep(500);
          const load0 = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
          const all0 = replicas.map((r) => ticks(`/proc/${r.proc.pid}/stat`));
          const main0 = replicas.map((r) => ticks(`/proc/${r.proc.pid}/task/${r.proc.pid}/stat`));
          const perf = process.env.PERF_DIR && prof === undefined && binary === binaries.at(-1) && round === ROUNDS - 1
            ? replicas.map((r) => Bun.spawn(["perf", "record", "-e", "cpu-clock", "-F", "2000", "-g", "-t", String(r.proc.pid), "-o", `${process.env.PERF_DIR}/perf-${count}-${r.proc.pid}.data`], { stdout: "ignore", stderr: "ignore" }))
            : [];
          const threads0 = threads(replicas.map((r) => r.proc.pid));
          const t0 = performance.now();
          await driveTurns(replicas, token, TURNS * count);
          for (const p of perf) (p.kill("SIGINT"), await p.exited);
          const secs = (performance.now() - t0) / 1000;
          const all = replicas.reduce((s, r, i) => s + ticks(`/proc/${r.proc.pid}/stat`) - all0[i]!, 0);
          const main = replicas.reduce((s, r, i) => s + ticks(`/proc/${r.proc.pid}/task/${r.proc.pid}/stat`) - main0[i]!, 0);
          const perTurn = (s: number) => (s * 1000) / (TURNS * count);
          const byThread = [...threads(replicas.map((r) => r.proc.pid))]
            .map(([name, t]) => [name, perTurn(t - (threads0.get(name) ?? 0))] as const)
            .filter(([, ms]) => ms >= 0.005)
            .sort((x, y) => y[1] - x[1])
            .map(([name, ms]) => `${name} ${ms.toFixed(3)}`)
            .join(", ");
          const key = `${count} ${binary}`;
          (results[key] ??= []).push([perTurn(all), perTurn(main), (TURNS * count) / secs]);
          console.log(
            `round ${round} replicas ${count} ${binary}: ${perTurn(all).toFixed(3)} ms/turn (main ${perTurn(main).toFixed(3)}), ${((TURNS * count) / secs).toFixed(0)} turns/s, load ${load0}; ${byThread}${warmup ? `; ${describeWarmup(warmup)}` : ""}`,
          );
        } finally {
          for (const r of replicas) await r.kill();
          for (const d of dirs) removeWorkspace(d);
          await dropSchema(schema);
          await dropKeys(prefix);
        }
      }
    }
  }
} finally {
  await fake.stop();
}
for (const [key, rows] of Object.entries(results))
  console.log(key, rows.map((r) => `${r[0]!.toFixed(3)}/${r[1]!.toFixed(3)}`).join("  "));
