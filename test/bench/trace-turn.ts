/**
 * Syscalls of a gateway's turns under the `bench scaleout` load (one replica, PostgreSQL + Redis): warms a replica of
 * `binary`, then runs `strace -f -c` (or with --log, every send with its first bytes) over --turns turns.
 *   bun test/bench/trace-turn.ts <binary> [--turns 200] [--warmup 500] [--log FILE] [--idle SECONDS]
 * --log: the turns run one at a time (concurrency 1) so each turn's sends read in order; --idle: no turns, the
 * warmed replica's syscalls over that many seconds.
 */
import { parseArgs } from "node:util";
import { replicaWorkspace, removeWorkspace, sharedConfig, sharedToken, startReplica } from "../helpers/replicas.ts";
import { dropSchema, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { startStandaloneFake } from "./announce.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    turns: { type: "string", default: "200" },
    warmup: { type: "string", default: "500" },
    log: { type: "string" },
    idle: { type: "string" },
  },
});
const binary = positionals[0]!;
const TURNS = Number(values.turns);
const fake = await startStandaloneFake(0);
const schema = uniqueSchema("trace");
const token = await sharedToken(schema);
const dir = replicaWorkspace(sharedConfig(fake.url, schema, uniquePrefix("trace")));
const replica = await startReplica(dir, { PRX_LOG: "silent" }, binary);

async function drive(count: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const n = next++;
      if (n >= count) return;
      const response = await fetch(`${replica.url}/api/sessions/load-${n % 64}/message`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ message: `turn ${n}` }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`turn ${n}: ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

try {
  await drive(Number(values.warmup), 16);
  await Bun.sleep(300);
  const args = values.log
    ? ["strace", "-f", "-tt", "-e", "trace=sendto,sendmsg,write,writev,recvfrom,read,openat,statx,epoll_pwait2,madvise,getsockopt,setsockopt", "-s", "120", "-o", values.log, "-p", String(replica.proc.pid)]
    : ["strace", "-f", "-c", "-p", String(replica.proc.pid)];
  const strace = Bun.spawn(args, { stdout: "inherit", stderr: "inherit" });
  await Bun.sleep(500);
  if (values.idle) await Bun.sleep(Number(values.idle) * 1000);
  else await drive(TURNS, values.log ? 1 : 16);
  strace.kill("SIGINT");
  await strace.exited;
  console.log(values.idle ? `idle ${values.idle} s` : `turns ${TURNS}`);
} finally {
  await replica.kill();
  removeWorkspace(dir);
  await dropSchema(schema);
  await fake.stop();
}
