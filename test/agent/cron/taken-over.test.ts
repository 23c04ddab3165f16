/**
 * An agentTurn job's run taken over by a second process (two agent hosts on one SQLite workspace, each with its own
 * clock, the first one's stopped as a killed process's): the run is kept in the run inbox like a channel's message, so
 * the second process delivers the answer the first one stored, or goes on from the stored prompt, and never runs the
 * job's prompt as a second turn.
 */
import { afterAll, expect, test } from "bun:test";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../../helpers/servers.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import { CronJobRunner } from "../../../src/agent/cron/index.ts";
import { CRON_RUN_INBOX, CRON_RUN_TAIL_MESSAGES } from "../../../src/agent/cron/run-inbox.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";
import type { ChannelStateStore, CronJobStore } from "../../../src/storage/types.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { waitFor } from "../../helpers/wait.ts";
import { FakeClock } from "../../plugins/cron/fake-clock.ts";
import { captureLogger } from "../../plugins/events/log.ts";
import { advance, cronTool, parsed } from "./harness.ts";
import { diesIn } from "../../helpers/dies-in.ts";
import { endSessionLease } from "../../helpers/session-lease.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
const SLOT = T0 + 60_000;
const LEASE_MS = 3000;
const SESSION = "telegram:42";
const PROMPT = "summarize the news";
const REMINDER = "stand-up in 5 minutes";
const dirs: string[] = [];
const schemas: string[] = [];
const testWithPostgres = await testNeeding("postgres");
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

interface Process {
  host: AgentHost;
  clock: FakeClock;
  runner: CronJobRunner;
  delivered: string[];
  logger: ReturnType<typeof captureLogger>;
}

function processOn(host: AgentHost, owner: string, parts: { inbox?: ChannelStateStore; jobs?: CronJobStore; deliver?: () => Promise<void> } = {}): Process {
  const clock = new FakeClock(T0);
  const delivered: string[] = [];
  const logger = captureLogger();
  const runner = new CronJobRunner({
    jobs: parts.jobs ?? host.storage.cronJobs,
    state: host.storage.cron,
    sessions: host.sessions,
    inbox: parts.inbox ?? host.storage.channels,
    runTurn: (input) => host.runTurn(input),
    accepts: (row) => row.channel === "telegram",
    deliver: async (_row, text) => {
      await parts.deliver?.();
      delivered.push(text);
    },
    clock,
    logger,
    owner,
    leaseMs: LEASE_MS,
  });
  return { host, clock, runner, delivered, logger };
}

/** Two agent hosts on one workspace: its SQLite database, or with `postgres` a schema of its own in PostgreSQL. */
async function hosts(postgres: boolean): Promise<{ fake: FakeOpenAIServer; first: AgentHost; second: AgentHost }> {
  const dir = mkdtempSync(join(tmpdir(), "prx-cron-taken-over-"));
  dirs.push(dir);
  const fake = startFakeOpenAI();
  const schema = postgres ? uniqueSchema("durable_rounds_cron") : null;
  if (schema) schemas.push(schema);
  const storage = schema ? { backend: "postgres", schema } : {};
  const env = schema ? { DATABASE_URL: TEST_DATABASE_URL } : {};
  const config = ConfigSchema.parse({ default_provider: "fake", default_model: "fake-model", providers: { fake: { base_url: fake.url } }, reliability: { retries: 0 }, storage });
  const first = await openAgentHost({ workspace: dir, config, env });
  const second = await openAgentHost({ workspace: dir, config, env });
  return { fake, first, second };
}

const conversation = async (host: AgentHost) => (await host.sessions.messages(SESSION)).map((m) => [m.role, m.content]);

/**
 * The first process claims the job's slot and dies where `kill` says (after `extra` messages are written to the chat's
 * session); the second takes the run over once the lease expired. What the second delivered, and the model calls made.
 */
async function takenOver(
  kill: (first: AgentHost, fake: FakeOpenAIServer) => { parts: Parameters<typeof processOn>[2]; reached: () => Promise<unknown> },
  extra = 0,
  postgres = false,
  /** The job's payload (default: an agentTurn of PROMPT); `meanwhile`: messages another turn writes to the session after A died. */
  options: { payload?: Record<string, unknown>; meanwhile?: Array<{ role: "user" | "assistant"; content: string }> } = {},
): Promise<{ delivered: string[]; requests: number; session: string[][]; open: number; first: Process }> {
  const { fake, first, second } = await hosts(postgres);
  const b = processOn(second, "alive");
  try {
    const payload = options.payload ?? { kind: "agentTurn", message: PROMPT };
    parsed(await cronTool(first.storage, new FakeClock(T0))({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload }));
    const dying = kill(first, fake);
    const a = processOn(first, "dead", dying.parts);
    await a.runner.start();
    await b.runner.start();
    // both know the job before its slot (PostgreSQL answers later than the start returns)
    await Promise.all([a.runner.idle(), b.runner.idle()]);
    // A reaches the slot first and claims it; it dies in its run and its clock stops
    await a.clock.advanceTo(SLOT);
    await dying.reached();
    // on PostgreSQL a dead process's connections end, and with them its lease of the session
    if (postgres) await endSessionLease(SESSION);
    if (extra > 0) {
      await first.sessions.append(SESSION, Array.from({ length: extra }, (_, i) => ({ role: "assistant" as const, content: `reminder ${i}` })));
    }
    if (options.meanwhile) await second.sessions.append(SESSION, options.meanwhile);
    // B finds the slot claimed, waits for the lease to expire, then takes the run over
    await advance(b.clock, SLOT + LEASE_MS - 1000, [b.runner]);
    expect(b.delivered).toEqual([]);
    await advance(b.clock, SLOT + LEASE_MS + 2000, [b.runner]);
    expect(b.logger.records.some((r) => r.message.includes("cron run taken over: its runner stopped renewing its lease"))).toBe(true);
    const session = (await conversation(second)).filter(([, content]) => !content!.startsWith("reminder "));
    // the run is done in its inbox: a later takeover finds nothing to do
    const open = (await second.storage.channels.open(CRON_RUN_INBOX)).length;
    return { delivered: b.delivered, requests: fake.chatRequests().length, session, open, first: a };
  } finally {
    await b.runner.stop();
    await fake.stop();
    await second.close();
    await first.close().catch(() => undefined);
  }
}

test("a run whose answer was delivered before its process died is finished by the next, with nothing sent and no turn", async () => {
  const result = await takenOver((first, fake) => {
    fake.enqueue({ type: "text", text: "the only answer" });
    const recording = diesIn(first.storage.cronJobs, "recordRun");
    return { parts: { jobs: recording.dying }, reached: () => recording.reached };
  });
  expect(result.delivered).toEqual([]);
  expect(result.open).toBe(0);
  expect(result.first.delivered).toEqual(["the only answer"]);
  expect(result.requests).toBe(1);
  expect(result.session).toEqual([
    ["user", PROMPT],
    ["assistant", "the only answer"],
  ]);
});

test("a run whose answer was stored in its inbox before its process died in the delivery has that answer delivered once, with no turn", async () => {
  const result = await takenOver((_first, fake) => {
    fake.enqueue({ type: "text", text: "the only answer" });
    const { promise: reached, resolve } = Promise.withResolvers<void>();
    return { parts: { deliver: () => (resolve(), new Promise<never>(() => {})) }, reached: () => reached };
  });
  expect(result.delivered).toEqual(["the only answer"]);
  expect(result.requests).toBe(1);
  expect(result.session).toEqual([
    ["user", PROMPT],
    ["assistant", "the only answer"],
  ]);
  expect(result.open).toBe(0);
});

/** A's turn stores its answer in the session; A dies before its inbox records it. */
const diesRecordingTheAnswer = (first: AgentHost, fake: FakeOpenAIServer) => {
  fake.enqueue({ type: "text", text: "the only answer" });
  const recording = diesIn(first.storage.channels, "replied");
  return { parts: { inbox: recording.dying }, reached: () => recording.reached };
};

test("a run whose answer was in the session, not yet in its inbox, has the stored answer delivered once, with no turn", async () => {
  const result = await takenOver(diesRecordingTheAnswer);
  expect(result.delivered).toEqual(["the only answer"]);
  expect(result.requests).toBe(1);
  expect(result.session).toEqual([
    ["user", PROMPT],
    ["assistant", "the only answer"],
  ]);
});

test("the prompt as the CRON_RUN_TAIL_MESSAGES-th newest message: its stored answer is delivered", async () => {
  // the prompt, its answer, then messages written to the chat: the prompt is the limit-th newest
  const result = await takenOver(diesRecordingTheAnswer, CRON_RUN_TAIL_MESSAGES - 2);
  expect(result.delivered).toEqual(["the only answer"]);
  expect(result.requests).toBe(1);
}, 30_000);

test("the prompt one past CRON_RUN_TAIL_MESSAGES: not among them, the turn goes on from the session", async () => {
  const result = await takenOver(diesRecordingTheAnswer, CRON_RUN_TAIL_MESSAGES - 1);
  expect(result.requests).toBe(2);
  expect(result.delivered).toHaveLength(1);
  expect(result.delivered[0]).not.toBe("the only answer");
  // the prompt was not stored again
  expect(result.session.filter(([role]) => role === "user")).toEqual([["user", PROMPT]]);
}, 30_000);

/** A's turn stores the prompt and waits for its model call forever. */
const diesInTheTurn = (_first: AgentHost, fake: FakeOpenAIServer) => {
  fake.enqueue({ type: "hang" });
  return { parts: {}, reached: () => waitFor(() => fake.chatRequests().length === 1, "the first turn's model call", 10_000) };
};

testWithPostgres("PostgreSQL: a run whose answer was in the session, not yet in its inbox, has the stored answer delivered once", async () => {
  const result = await takenOver(diesRecordingTheAnswer, 0, true);
  expect(result).toMatchObject({ delivered: ["the only answer"], requests: 1, open: 0 });
}, 30_000);

testWithPostgres("PostgreSQL: a run whose turn was cut off after storing the prompt goes on from the session", async () => {
  const result = await takenOver(diesInTheTurn, 0, true);
  expect(result).toMatchObject({ delivered: [`echo: ${PROMPT}`], requests: 2, open: 0 });
  expect(result.session).toEqual([
    ["user", PROMPT],
    ["assistant", `echo: ${PROMPT}`],
  ]);
}, 30_000);

test("a run whose turn was cut off after storing the prompt goes on from the session: the prompt is stored once, one answer delivered", async () => {
  const result = await takenOver(diesInTheTurn);
  expect(result.delivered).toEqual([`echo: ${PROMPT}`]);
  expect(result.requests).toBe(2);
  expect(result.session).toEqual([
    ["user", PROMPT],
    ["assistant", `echo: ${PROMPT}`],
  ]);
});

/** Another run of the same job (asked for by hand) on the session after the cut-off run's prompt: the same prompt. */
const anotherRun = [
  { role: "user" as const, content: PROMPT },
  { role: "assistant" as const, content: "another run's answer" },
];

for (const postgres of [false, true]) {
  const backend = postgres ? "PostgreSQL" : "SQLite";
  const on = postgres ? testWithPostgres : test;

  on(`${backend}: a run whose stored answer is followed by another run of the same prompt has its own answer delivered`, async () => {
    const result = await takenOver(diesRecordingTheAnswer, 0, postgres, { meanwhile: anotherRun });
    expect(result).toMatchObject({ delivered: ["the only answer"], requests: 1, open: 0 });
  }, 30_000);

  on(`${backend}: a run cut off before another turn on its session answers its own prompt, with the history up to it`, async () => {
    const meanwhile = [
      { role: "user" as const, content: "another question" },
      { role: "assistant" as const, content: "another answer" },
    ];
    const result = await takenOver(diesInTheTurn, 0, postgres, { meanwhile });
    expect(result).toMatchObject({ delivered: [`echo: ${PROMPT}`], requests: 2, open: 0 });
    expect(result.session).toEqual([["user", PROMPT], ...meanwhile.map((m) => [m.role, m.content]), ["assistant", `echo: ${PROMPT}`]]);
  }, 30_000);

  on(`${backend}: a reminder taken over after its text was added to the session is delivered without adding it again`, async () => {
    const result = await takenOver(
      () => {
        const { promise: reached, resolve } = Promise.withResolvers<void>();
        return { parts: { deliver: () => (resolve(), new Promise<never>(() => {})) }, reached: () => reached };
      },
      0,
      postgres,
      { payload: { kind: "systemEvent", text: REMINDER } },
    );
    expect(result).toMatchObject({ delivered: [REMINDER], requests: 0, open: 0 });
    expect(result.session).toEqual([["assistant", REMINDER]]);
  }, 30_000);

  on(`${backend}: a reminder taken over after its delivery adds and sends nothing more`, async () => {
    const result = await takenOver(
      (first) => {
        const recording = diesIn(first.storage.cronJobs, "recordRun");
        return { parts: { jobs: recording.dying }, reached: () => recording.reached };
      },
      0,
      postgres,
      { payload: { kind: "systemEvent", text: REMINDER } },
    );
    expect(result).toMatchObject({ delivered: [], requests: 0, open: 0 });
    expect(result.first.delivered).toEqual([REMINDER]);
    expect(result.session).toEqual([["assistant", REMINDER]]);
  }, 30_000);
}

test("a run whose turn fails is done in its inbox: recorded as failed, never taken over, forgotten with the answered ones", async () => {
  const { fake, first, second } = await hosts(false);
  const a = processOn(first, "a");
  try {
    parsed(await cronTool(first.storage, new FakeClock(T0))({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "agentTurn", message: PROMPT } }));
    fake.enqueue({ type: "error", status: 400, message: "bad request" });
    await a.runner.start();
    await advance(a.clock, SLOT + 1000, [a.runner]);
    expect(a.delivered).toEqual([]);
    expect(await first.storage.channels.open(CRON_RUN_INBOX)).toEqual([]);
    const runs = await first.storage.cronJobs.runs((await first.storage.cronJobs.list())[0]!.id, 5);
    expect(runs.map((r) => r.ok)).toEqual([false]);
  } finally {
    await a.runner.stop();
    await fake.stop();
    await second.close();
    await first.close();
  }
});
