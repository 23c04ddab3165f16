/**
 * What one scale-out turn asks of the machine, counted: the load of `bench scaleout` (concurrency 16 over 64 sessions,
 * PostgreSQL storage and memory, Redis bus, the standalone fake) on N replicas of one binary, then per measured turn:
 * the replicas' CPU (all threads, main thread), PostgreSQL's row and index operations by table of the run's schema
 * (pg_stat_user_tables), the server's Redis commands (INFO commandstats: every client of the server counts) and, with
 * --strace, each replica's system calls (`strace -c -f`, written beside --out). Replicas start with the environment of
 * `prx service install` (GATEWAY_SERVICE_ENV), as the suite's do.
 *   bun test/bench/scaleout-counts.ts <binary> [--replicas 1] [--turns 1000] [--warmup 2000] [--strace] [--out DIR]
 * PRX_TEST_SCHEMA_PREFIX / PRX_TEST_KEY_PREFIX name the schema and Redis keys it creates (servers.ts).
 */
import { RedisClient, SQL } from "bun";
import { mkdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { removeWorkspace, replicaWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../helpers/replicas.ts";
import { dropSchema, TEST_DATABASE_URL, TEST_REDIS_URL, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { GATEWAY_SERVICE_ENV } from "../../src/cli/service.ts";
import { startStandaloneFake } from "./announce.ts";
import { driveTurns } from "./scaleout-drive.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    replicas: { type: "string", default: "1" },
    turns: { type: "string", default: "1000" },
    warmup: { type: "string", default: "2000" },
    strace: { type: "boolean", default: false },
    out: { type: "string", default: "/tmp" },
  },
});
const binary = positionals[0];
if (!binary) throw new Error("usage: bun test/bench/scaleout-counts.ts <binary> [--replicas N] [--turns N] [--warmup N] [--strace] [--out DIR]");
const COUNT = Number(values.replicas);
const TURNS = Number(values.turns) * COUNT;
const WARMUP = Number(values.warmup) * COUNT;
/** A backend reports its table counts to pg_stat_user_tables at most once a second: waited for before each reading. */
const STATS_SETTLE_MS = 1500;
const TABLE_COUNTERS = ["seq_scan", "idx_scan", "n_tup_ins", "n_tup_upd", "n_tup_del"] as const;

type TableCounts = Map<string, Record<(typeof TABLE_COUNTERS)[number], number>>;

async function tableCounts(sql: SQL, schema: string): Promise<TableCounts> {
  await sql`SELECT pg_stat_clear_snapshot()`;
  const rows = await sql`SELECT relname, seq_scan, idx_scan, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = ${schema}`;
  return new Map(rows.map((row: Record<string, unknown>) => [String(row.relname), Object.fromEntries(TABLE_COUNTERS.map((k) => [k, Number(row[k] ?? 0)])) as never]));
}

async function redisCalls(redis: RedisClient): Promise<Map<string, number>> {
  const info = String(await redis.send("INFO", ["commandstats"]));
  const calls = new Map<string, number>();
  for (const line of info.split("\n")) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (match) calls.set(match[1]!, Number(match[2]));
  }
  return calls;
}

/** CPU seconds of a process (all threads), or of its main thread alone. */
function cpuSeconds(pid: number, mainOnly = false): number {
  const fields = readFileSync(mainOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const fake = await startStandaloneFake(0);
const schema = uniqueSchema(`counts${COUNT}`);
const prefix = uniquePrefix(`counts${COUNT}`);
const sql = new SQL(TEST_DATABASE_URL);
const redis = new RedisClient(TEST_REDIS_URL);
const replicas: Replica[] = [];
try {
  const token = await sharedToken(schema);
  const config = sharedConfig(fake.url, schema, prefix);
  for (let i = 0; i < COUNT; i++) replicas.push(await startReplica(replicaWorkspace(config), { ...GATEWAY_SERVICE_ENV, PRX_LOG: "silent" }, binary));
  await driveTurns(replicas, token, WARMUP);
  await Bun.sleep(STATS_SETTLE_MS);
  const tables0 = await tableCounts(sql, schema);
  const redis0 = await redisCalls(redis);
  const all0 = replicas.map((r) => cpuSeconds(r.proc.pid));
  const main0 = replicas.map((r) => cpuSeconds(r.proc.pid, true));
  if (values.strace) mkdirSync(values.out!, { recursive: true });
  const tracers = values.strace
    ? replicas.map((r) =>
        Bun.spawn(["strace", "-c", "-f", "-p", String(r.proc.pid), "-o", `${values.out}/strace-${COUNT}-${r.proc.pid}.txt`], { stdout: "ignore", stderr: "ignore" }),
      )
    : [];
  if (tracers.length > 0) await Bun.sleep(300); // attached before the first measured turn
  const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const started = performance.now();
  await driveTurns(replicas, token, TURNS);
  const seconds = (performance.now() - started) / 1000;
  for (const tracer of tracers) (tracer.kill("SIGINT"), await tracer.exited);
  const all = replicas.reduce((sum, r, i) => sum + cpuSeconds(r.proc.pid) - all0[i]!, 0);
  const main = replicas.reduce((sum, r, i) => sum + cpuSeconds(r.proc.pid, true) - main0[i]!, 0);
  await Bun.sleep(STATS_SETTLE_MS);
  const tables1 = await tableCounts(sql, schema);
  const redis1 = await redisCalls(redis);
  const perTurn = (n: number) => (n / TURNS).toFixed(2);
  console.log(
    `${COUNT} replica(s), ${TURNS} turns, ${(TURNS / seconds).toFixed(0)} turns/s, load ${load}: CPU ${((all * 1000) / TURNS).toFixed(3)} ms a turn (main threads ${((main * 1000) / TURNS).toFixed(3)})${values.strace ? ", under strace" : ""}`,
  );
  console.log("PostgreSQL a turn, by table (seq scans, index scans, rows inserted, updated, deleted):");
  for (const [table, after] of tables1) {
    const before = tables0.get(table);
    const deltas = TABLE_COUNTERS.map((k) => after[k] - (before?.[k] ?? 0));
    if (deltas.some((d) => d > 0)) console.log(`  ${table}: ${deltas.map(perTurn).join(" / ")}`);
  }
  const commands = [...redis1]
    .map(([name, calls]) => [name, calls - (redis0.get(name) ?? 0)] as const)
    .filter(([name, calls]) => calls > 0 && name !== "info")
    .sort((a, b) => b[1] - a[1]);
  console.log(`Redis commands a turn (the whole server): ${commands.map(([name, calls]) => `${name} ${(calls / TURNS).toFixed(3)}`).join(", ") || "none"}`);
  const rss = replicas.map((r) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${r.proc.pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
  console.log(`RSS after the turns: ${rss.map((mb) => `${mb.toFixed(0)} MB`).join(", ")}`);
  if (values.strace) console.log(`system calls: ${values.out}/strace-${COUNT}-*.txt (divide by ${TURNS})`);
} finally {
  for (const r of replicas) {
    await r.kill();
    removeWorkspace(r.dir);
  }
  await dropSchema(schema);
  const keys = (await redis.send("KEYS", [`${prefix}*`])) as string[];
  if (keys.length > 0) await redis.send("DEL", keys);
  redis.close();
  await sql.close();
  await fake.stop();
}
