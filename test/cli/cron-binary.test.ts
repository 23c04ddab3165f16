/**
 * The cron tool through the built binary: `prx agent` schedules a reminder two seconds ahead and an hourly job, the
 * gateway delivers the reminder into its session once; `prx cron list|run|runs|rm` see and change the jobs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";

let fake: FakeServer;
let gateway: RunningGateway | null = null;
let ws: ReturnType<typeof tempWorkspace>;

beforeAll(() => {
  fake = startFakeOpenAI();
  ws = tempWorkspace(fakeProviderConfig(fake.url), { prefix: "prx-cron-tool-" });
});
afterAll(async () => {
  gateway?.proc.kill();
  await gateway?.proc.exited;
  await fake.stop();
  ws.cleanup();
});

const prx = (...args: string[]) => runPrx([...args, "-w", ws.dir], { env: { HOME: ws.dir, PRX_LOG: "warn" } });
const cron = async (...args: string[]) => {
  const result = await prx("cron", ...args, "--json");
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

test("a reminder scheduled by prx agent is delivered by the gateway into its session once; prx cron lists, runs and removes jobs", async () => {
  const at = new Date(Date.now() + 2000).toISOString();
  const remind = { action: "add", schedule: { kind: "at", at }, payload: { kind: "systemEvent", text: "Reminder: water the plants" } };
  const added = await prx("agent", "-m", `use tool cron ${JSON.stringify(remind)}`, "--session", "cli-cron");
  expect(added.code).toBe(0);
  expect(added.stdout).toContain('"next_run"');
  const hourly = { action: "add", job: { name: "hourly", schedule: { kind: "every", every_ms: 3_600_000 }, payload: { kind: "systemEvent", text: "hourly check" } } };
  expect((await prx("agent", "-m", `use tool cron ${JSON.stringify(hourly)}`, "--session", "cli-cron")).code).toBe(0);
  const listed = await cron("list");
  expect(listed.map((j: { payload: { text: string } }) => j.payload.text)).toEqual(["Reminder: water the plants", "hourly check"]);
  expect(listed[0].channel).toBe("cli");
  const hourlyId = listed[1].id as string;

  gateway = await startGatewayBinary(ws.dir, { PRX_LOG: "warn" }, "listening");
  // the reminder fires, is kept in the session and removed; the hourly job stays
  await waitFor(async () => (await cron("list")).length === 1, "the reminder to be delivered and removed");
  const asked = await cron("run", hourlyId);
  expect(asked.queued).toBe(true);
  await waitFor(async () => (await cron("runs", hourlyId)).runs.length === 1, "the manual run");
  const [run] = (await cron("runs", hourlyId)).runs;
  expect([run.ok, run.slot, run.detail]).toEqual([true, null, "hourly check"]);
  const session = await prx("sessions", "show", "cli-cron", "--json");
  const messages = JSON.parse(session.stdout).messages as Array<{ role: string; content: string }>;
  expect(messages.filter((m) => m.content === "Reminder: water the plants").map((m) => m.role)).toEqual(["assistant"]);
  expect(messages.filter((m) => m.content === "hourly check").length).toBe(1);

  expect((await cron("rm", hourlyId)).removed).toEqual([hourlyId]);
  expect(await cron("list")).toEqual([]);
  const missing = await prx("cron", "rm", hourlyId);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`no cron job "${hourlyId}"`);
  const usage = await prx("cron", "stop");
  expect(usage.code).toBe(2);
}, 60_000);
