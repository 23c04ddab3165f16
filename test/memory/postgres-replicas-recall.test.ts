/**
 * Auto-recall across `prx gateway` replicas of the built binary on one PostgreSQL schema: while memory is empty a
 * turn recalls nothing; a memory stored by a `prx memory store` command (another process, no replica) is in the
 * prompt of the next turn on every replica, and so is one stored through a replica's memory API.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { removeReplicas, removeWorkspace, replicaWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../helpers/replicas.ts";
import { TEST_DATABASE_URL, TEST_REDIS_URL, testNeeding, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";

setDefaultTimeout(60_000);

const schema = uniqueSchema("recallrep");
const prefix = uniquePrefix("recallrep");
const testWithServers = await testNeeding("postgres", "redis");
const up = testWithServers === test;
const replicas: Replica[] = [];
let fake: FakeServer;
let token = "";
let commandDir = "";

/** A turn on `replica`; returns the text of the prompt the provider was sent. */
async function turn(replica: Replica, session: string, message: string): Promise<string> {
  const before = fake.chatRequests().length;
  const response = await fetch(`${replica.url}/api/sessions/${session}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const requests = fake.chatRequests();
  expect(requests.length).toBe(before + 1);
  return JSON.stringify(requests.at(-1)!.body);
}

async function memoryCommand(...args: string[]): Promise<void> {
  const proc = Bun.spawn([BINARY, "memory", ...args, "-w", commandDir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: commandDir, DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, PRX_LOG: "silent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
}

beforeAll(async () => {
  if (!up) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  token = await sharedToken(schema);
  const config = sharedConfig(fake.url, schema, prefix);
  for (let i = 0; i < 2; i++) replicas.push(await startReplica(replicaWorkspace(config)));
  commandDir = replicaWorkspace(config);
});
afterAll(async () => {
  fake?.stop();
  await removeReplicas(replicas, { up, schema, prefix });
  if (commandDir) removeWorkspace(commandDir);
});

testWithServers("a memory stored by another process is recalled by the next turn on every replica", async () => {
  const [a, b] = replicas as [Replica, Replica];
  // the first turns of a process read the history after the lock; the later ones with it, and memory's emptiness
  for (let i = 0; i < 3; i++) {
    expect(await turn(a, "ra", "when does the orchid bloom")).not.toContain("blooms in spring");
    expect(await turn(b, "rb", "when does the orchid bloom")).not.toContain("blooms in spring");
  }
  await memoryCommand("store", "orchid", "the orchid blooms in spring");
  expect(await turn(a, "ra", "when does the orchid bloom")).toContain("the orchid blooms in spring");
  expect(await turn(b, "rb", "when does the orchid bloom")).toContain("the orchid blooms in spring");
  await memoryCommand("forget", "orchid");
  expect(await turn(a, "ra", "when does the orchid bloom")).not.toContain("blooms in spring");
  expect(await turn(a, "ra", "when does the orchid bloom")).not.toContain("blooms in spring");
  // stored through replica b's memory API: the next turn on replica a recalls it
  const stored = await fetch(`${b.url}/api/memory`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ key: "fern", content: "the fern wants shade", category: "core" }),
  });
  expect(stored.status).toBe(200);
  expect(await turn(a, "ra", "does the fern want shade")).toContain("the fern wants shade");
});
