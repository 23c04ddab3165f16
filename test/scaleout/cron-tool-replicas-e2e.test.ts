/**
 * The cron tool across three `prx gateway` replicas of the built binary on one PostgreSQL schema: a reminder added
 * through replica 1 two seconds ahead lands in its session once (whichever replica claims the slot), is gone from
 * every replica's job list after, and a job removed through replica 3 is gone for all.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary } from "../helpers/binary.ts";
import { removeReplicas, replicaWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../helpers/replicas.ts";
import { testNeeding, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const schema = uniqueSchema("crontool");
const prefix = uniquePrefix("crontool");
let fake: FakeServer;
let token = "";
const testWithServers = await testNeeding("postgres", "redis");
const up = testWithServers === test;
const replicas: Replica[] = [];

const auth = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function say(replica: Replica, session: string, message: string): Promise<string> {
  const response = await fetch(`${replica.url}/api/sessions/${session}/message`, { method: "POST", headers: auth(), body: JSON.stringify({ message }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { reply: string }).reply;
}

async function jobs(replica: Replica): Promise<Array<{ id: string; payload: { text?: string } }>> {
  const response = await fetch(`${replica.url}/api/cron/jobs`, { headers: auth() });
  expect(response.status).toBe(200);
  return ((await response.json()) as { jobs: Array<{ id: string; payload: { text?: string } }> }).jobs;
}

async function contents(replica: Replica, session: string): Promise<string[]> {
  const response = await fetch(`${replica.url}/api/sessions/${session}/messages`, { headers: auth() });
  return ((await response.json()) as { messages: Array<{ content: string }> }).messages.map((m) => m.content);
}

beforeAll(async () => {
  if (!up) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  token = await sharedToken(schema);
  const config = sharedConfig(fake.url, schema, prefix, '[autonomy.tools]\ncron = "allow"');
  // one at a time, each kept as it starts: one that fails to start leaves the others to afterAll to stop
  for (let i = 0; i < 3; i++) replicas.push(await startReplica(replicaWorkspace(config)));
  for (const r of replicas) await waitFor(async () => (await fetch(`${r.url}/health`)).status === 200, `replica ${r.url} healthy`);
});

afterAll(async () => {
  await removeReplicas(replicas, { up, schema, prefix });
  await fake?.stop();
});

describe("the cron tool on three replicas", () => {
  testWithServers("a reminder two seconds ahead lands in its session once; a job removed through one replica is gone for all", async () => {
    const at = new Date(Date.now() + 2000).toISOString();
    const reminder = { action: "add", schedule: { kind: "at", at }, payload: { kind: "systemEvent", text: "Reminder: deploy window opens" } };
    expect(await say(replicas[0]!, "cron-replicas", `use tool cron ${JSON.stringify(reminder)}`)).toContain('"next_run"');
    const daily = { action: "add", schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" }, payload: { kind: "systemEvent", text: "daily" } };
    await say(replicas[1]!, "cron-replicas", `use tool cron ${JSON.stringify(daily)}`);
    await waitFor(async () => (await contents(replicas[2]!, "cron-replicas")).includes("Reminder: deploy window opens"), "the reminder in the session");
    await waitFor(async () => (await jobs(replicas[1]!)).length === 1, "the reminder's removal once delivered");
    for (const r of replicas) expect((await contents(r, "cron-replicas")).filter((c) => c === "Reminder: deploy window opens")).toHaveLength(1);
    const [left] = await jobs(replicas[0]!);
    expect(left!.payload.text).toBe("daily");
    const removed = await fetch(`${replicas[2]!.url}/api/cron/jobs/${left!.id}`, { method: "DELETE", headers: auth() });
    expect(removed.status).toBe(200);
    for (const r of replicas) expect(await jobs(r)).toEqual([]);
    const again = await fetch(`${replicas[0]!.url}/api/cron/jobs/${left!.id}`, { method: "DELETE", headers: auth() });
    expect(again.status).toBe(404);
  });
});
