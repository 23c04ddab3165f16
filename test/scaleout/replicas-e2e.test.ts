/**
 * Three `prx gateway` replicas of the built binary on one PostgreSQL schema and one Redis prefix: an event published on
 * replica 1 reaching a hook plugin on replica 3, a plugin reload through one replica reloading all, one coherent
 * session across replicas, kill -9 mid-turn, and a cron job whose runs are spread over the replicas, no slot twice.
 * The cron job runs beside the other checks; its test waits until CRON_RUNS_WATCHED runs have happened. That every
 * slot fires exactly once, on a clock the test controls, is test/plugins/cron/scheduler-postgres.test.ts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary } from "../helpers/binary.ts";
import { removeReplicas, sharedKv, replicaWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../helpers/replicas.ts";
import { testNeeding, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

/** Runs of the cron job (every second) the test waits for across the replicas before it checks them. */
const CRON_RUNS_WATCHED = 20;
/** How long those runs may take to happen on a loaded machine before the wait fails. */
const CRON_WATCH_TIMEOUT_MS = 120_000;
/** The fake provider holds a reply to a message starting with "slow" this long (a turn to kill in the middle of). */
const SLOW_REPLY_MS = 4000;

const schema = uniqueSchema("e2e");
const prefix = uniquePrefix("e2e");
let fake: FakeServer;
let token = "";
const testWithServers = await testNeeding("postgres", "redis");
const up = testWithServers === test;
const replicas: Replica[] = [];

async function turn(replica: Replica, session: string, message: string): Promise<{ status: number; body: { reply?: string } }> {
  const response = await fetch(`${replica.url}/api/sessions/${session}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  return { status: response.status, body: (await response.json()) as { reply?: string } };
}

async function history(replica: Replica, session: string): Promise<Array<{ role: string; content: string }>> {
  const response = await fetch(`${replica.url}/api/sessions/${session}/messages`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { messages: Array<{ role: string; content: string }> }).messages.map(({ role, content }) => ({
    role,
    content,
  }));
}

beforeAll(async () => {
  if (!up) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  fake.script((request) => {
    const last = (request.body as { messages: Array<{ content: unknown }> }).messages.at(-1);
    const text = typeof last?.content === "string" ? last.content : "";
    return text.startsWith("slow") ? { type: "text", text: `slowly: ${text}`, delayMs: SLOW_REPLY_MS } : undefined;
  });
  token = await sharedToken(schema);
  const config = sharedConfig(fake.url, schema, prefix);
  const dirs = [
    replicaWorkspace(config, ["test-wasm2/cron-count"]),
    replicaWorkspace(config, ["test-wasm2/cron-count"]),
    replicaWorkspace(config, ["test-wasm2/cron-count", "test-wasm2/hook-rec"]),
  ];
  replicas.push(...(await Promise.all(dirs.map((dir) => startReplica(dir)))));
  // Each replica loads its plugins and announces its subscriptions; replica 1 learns that replica 3's hook wants
  // prx.lifecycle.* (and nothing else is needed before the checks start).
  for (const r of replicas) {
    await waitFor(async () => (await fetch(`${r.url}/health`)).status === 200, `replica ${r.url} healthy`);
  }
  await waitFor(() => replicas[0]!.grep(/replica peers changed.*prx\.lifecycle\.\*/).length > 0, "replica 1 to see replica 3's hook");
});

afterAll(async () => {
  await removeReplicas(replicas, { up, schema, prefix });
  await fake?.stop();
});

const it = (name: string, body: () => Promise<void>, timeout?: number) => testWithServers(name, body, timeout);

describe("three replicas on one PostgreSQL and Redis", () => {
  it("an event published on replica 1 reaches the hook plugin on replica 3", async () => {
    // hook-rec (only on replica 3) appends every topic it receives to its kv; this is the first turn anywhere, so
    // the one agent_stop it can record is the one published on replica 1
    const stops = async () => ((await sharedKv(schema, "hook-rec", "topics")) ?? "").split("\n").filter((t) => t === "prx.lifecycle.agent_stop").length;
    const before = await stops();
    expect(before).toBe(0);
    const answer = await turn(replicas[0]!, "evented-on-1", "hello hook");
    expect(answer.status).toBe(200);
    await waitFor(async () => (await stops()) === before + 1, "the agent_stop of replica 1's turn on replica 3's hook");
    expect(await stops()).toBe(before + 1);
  });

  it("a plugin reload through one replica's API reloads every replica; the answer lists each outcome", async () => {
    const response = await fetch(`${replicas[1]!.url}/api/plugins/cron-count/reload`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { generation: number; replicas: Array<{ replica: string; ok: boolean; generation: number }> };
    expect(body.replicas.length).toBe(3);
    expect(new Set(body.replicas.map((r) => r.replica)).size).toBe(3);
    expect(body.replicas.every((r) => r.ok && r.generation >= 2)).toBe(true);
    expect(body.replicas[0]!.generation).toBe(body.generation);
  });

  it("a client alternating replicas in one session sees one coherent history", async () => {
    const said: string[] = [];
    for (let i = 0; i < 9; i++) {
      const replica = replicas[i % 3]!;
      const answer = await turn(replica, "shared-1", `message ${i}`);
      expect(answer.status).toBe(200);
      expect(answer.body.reply).toBe(`echo: message ${i}`);
      said.push(`message ${i}`, `echo: message ${i}`);
    }
    for (const replica of replicas) expect((await history(replica, "shared-1")).map((m) => m.content)).toEqual(said);
  });

  it("turns on one session sent to all replicas at once never interleave: each user message is followed by its reply", async () => {
    const answers = await Promise.all(replicas.map((r, i) => turn(r, "shared-2", `together ${i}`)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const stored = await history(replicas[1]!, "shared-2");
    expect(stored.length).toBe(6);
    for (let i = 0; i < stored.length; i += 2) {
      expect(stored[i]!.role).toBe("user");
      expect(stored[i + 1]!.content).toBe(`echo: ${stored[i]!.content}`);
    }
  });

  it("a cron job's runs are spread over the replicas, no slot runs twice, and its kv counts every run", async () => {
    const ran = () =>
      replicas.flatMap((r) =>
        r.grep(/cron job ran/).map((line) => (JSON.parse(line.slice(line.indexOf("{"))) as { job: string; slot: string }).slot),
      );
    const byReplica = () => replicas.map((r) => r.grep(/cron job ran/).length);
    await waitFor(
      () => ran().length >= CRON_RUNS_WATCHED && byReplica().filter((n) => n > 0).length >= 2,
      () => `${CRON_RUNS_WATCHED} cron runs on at least two replicas (runs per replica: ${byReplica().join(", ")})`,
      CRON_WATCH_TIMEOUT_MS,
    );
    const slots = ran();
    expect(new Set(slots).size).toBe(slots.length); // no slot ran twice
    // the runs were spread over the replicas (each claims the slots it reaches first)
    expect(byReplica().filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
    // the job counts its runs in its kv, one KV for the plugin on every replica (PostgreSQL): one count of them all
    const counted = Number(await sharedKv(schema, "cron-count", "runs"));
    expect(counted).toBeGreaterThanOrEqual(slots.length);
    expect(counted).toBeLessThanOrEqual(slots.length + 3); // runs finishing between the log read and the kv read
  }, CRON_WATCH_TIMEOUT_MS + 30_000);

  it("kill -9 of a replica mid-turn loses no committed message; the session continues on another replica", async () => {
    const [first, second] = [replicas[0]!, replicas[1]!];
    expect((await turn(first, "killed", "before the kill")).status).toBe(200);
    const pending = turn(second, "killed", "slow answer please").catch((error: unknown) => ({ status: 0, body: { error } }));
    await waitFor(async () => (await history(first, "killed")).some((m) => m.content === "slow answer please"), "the user message stored");
    await second.kill("SIGKILL");
    expect((await pending).status).toBe(0);
    const after = await turn(first, "killed", "after the kill");
    expect(after.status).toBe(200);
    expect((await history(first, "killed")).map((m) => m.content)).toEqual([
      "before the kill",
      "echo: before the kill",
      "slow answer please",
      "after the kill",
      "echo: after the kill",
    ]);
  });
});
