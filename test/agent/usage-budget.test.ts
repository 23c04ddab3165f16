import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { Envelopes, MiddlewareRunner, Stage } from "../../src/contracts/envelopes.ts";
import { isPrxError, type PrxError } from "../../src/core/errors.ts";
import type { MessageUsage } from "../../src/storage/types.ts";
import { startFakeAnthropic } from "../fakes/anthropic-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let openai: FakeServer;
let anthropic: FakeServer;
const dirs: string[] = [];

beforeAll(() => {
  openai = startFakeOpenAI({ cachedTokens: 3 });
  anthropic = startFakeAnthropic({ cachedTokens: 5, cacheWriteTokens: 2 });
});
afterAll(async () => {
  await openai.stop();
  await anthropic.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** $1 per million input tokens, $0.10 cached, $2 output: every cost is exact in the test's arithmetic. */
const PRICES = { input_per_mtok: 1, cached_input_per_mtok: 0.1, output_per_mtok: 2 };

async function host(budget: Record<string, unknown> = {}, clock?: { now: number }, provider = "fake", middleware?: MiddlewareRunner): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-usage-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: provider,
    default_model: provider === "claude" ? "claude-fake" : "fake-model",
    providers: {
      fake: { base_url: openai.url, model_info: { "fake-model": PRICES } },
      claude: { kind: "anthropic", base_url: anthropic.url, api_key_env: "PRX_TEST_ANTHROPIC_KEY", model_info: { "claude-fake": PRICES } },
    },
    reliability: { retries: 0 },
    budget,
  });
  return openAgentHost({
    workspace: dir,
    config,
    env: { PRX_TEST_ANTHROPIC_KEY: "sk-ant-test" },
    ...(clock ? { now: () => clock.now } : {}),
    ...(middleware ? { extend: async () => ({ middleware }) } : {}),
  });
}

function expectedCost(input: number, cached: number, output: number): number {
  return ((input - cached) * PRICES.input_per_mtok + cached * PRICES.cached_input_per_mtok + output * PRICES.output_per_mtok) / 1e6;
}

function reportedSince(fake: FakeServer, from: number) {
  const reported = fake.chatRequests().slice(from).map((r) => r.reported!);
  const sum = (key: "input" | "output" | "cached") => reported.reduce((total, r) => total + r[key], 0);
  return { calls: reported.length, input: sum("input"), output: sum("output"), cached: sum("cached") };
}

async function refusal(run: Promise<unknown>): Promise<PrxError> {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isPrxError(error, "BUDGET_EXCEEDED")) throw new Error(`expected BUDGET_EXCEEDED, got ${String(error)}`);
  return error;
}

/** Spend exactly `usd` today on `channel` (and `sender`), as a turn's model call would have. */
async function spend(h: AgentHost, usd: number, day: string, channel = "test", sender: string | null = null): Promise<void> {
  const usage: MessageUsage = { provider: "fake", model: "fake-model", input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cost_usd: usd };
  h.usage.count(null, [usage], { day, channel, sender });
  // half of them written, half still pending: a budget reads both
  if (usd >= 1) await h.usage.flush();
}

describe("usage of turns", () => {
  for (const [name, provider, fake] of [
    ["OpenAI-compatible", "fake", () => openai],
    ["Anthropic", "claude", () => anthropic],
  ] as const) {
    for (const streaming of [false, true]) {
      test(`${name}${streaming ? ", streamed" : ""}: each assistant message keeps its call's usage and the totals are their sum`, async () => {
        const h = await host({}, undefined, provider);
        const from = fake().chatRequests().length;
        const observer = streaming ? { onDelta: () => {} } : undefined;
        const text = 'use tool memory_store {"key":"k1","content":"the sky is green"}';
        await h.runTurn({ sessionId: "u1", text, channel: "test", ...(observer ? { observer } : {}) });
        await h.runTurn({ sessionId: "u1", text: "and again", channel: "test", ...(observer ? { observer } : {}) });
        const reported = reportedSince(fake(), from);
        expect(reported.calls).toBe(3);
        expect(reported.cached).toBeGreaterThan(0);
        const kept = (await h.sessions.messages("u1")).filter((m) => m.usage).map((m) => m.usage!);
        expect(kept).toHaveLength(3);
        const sum = (key: keyof MessageUsage) => kept.reduce((total, u) => total + (u[key] as number), 0);
        expect([sum("input_tokens"), sum("output_tokens"), sum("cached_input_tokens")]).toEqual([reported.input, reported.output, reported.cached]);
        for (const u of kept) expect(u.cost_usd).toBeCloseTo(expectedCost(u.input_tokens, u.cached_input_tokens, u.output_tokens), 12);
        const totals = await h.usage.session("u1");
        expect(totals).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, cached_input_tokens: reported.cached, calls: 3 });
        expect(totals.cost_usd).toBeCloseTo(expectedCost(reported.input, reported.cached, reported.output), 12);
        const [day] = await h.usage.totals("day", "2000-01-01");
        expect(day).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, calls: 3 });
        const models = await h.usage.totals("model", "2000-01-01");
        expect(models.map((m) => m.key)).toEqual([`${provider}/${provider === "claude" ? "claude-fake" : "fake-model"}`]);
        await h.close();
      });
    }
  }

  test("a stateless turn (the client's history) stores no messages but counts its usage", async () => {
    const h = await host();
    const from = openai.chatRequests().length;
    await h.runTurn({ sessionId: "stateless", text: "hi", channel: "gateway", historyOverride: [] });
    const reported = reportedSince(openai, from);
    expect(await h.sessions.get("stateless")).toBeNull();
    const [day] = await h.usage.totals("day", "2000-01-01");
    expect(day).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, calls: 1 });
    expect(await h.usage.totals("session", "2000-01-01")).toEqual([]);
    await h.close();
  });

  test("a rerunnable turn (its user message and each tool round written as they complete) counts each model call once", async () => {
    const h = await host();
    const from = openai.chatRequests().length;
    await h.runTurn({ sessionId: "r1", text: 'use tool memory_store {"key":"k2","content":"the sea is red"}', channel: "test", rerunnable: {} });
    const reported = reportedSince(openai, from);
    expect(reported.calls).toBe(2);
    expect((await h.sessions.messages("r1")).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(await h.usage.session("r1")).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, cached_input_tokens: reported.cached, calls: 2 });
    await h.close();
  });

  test("a turn that fails after a model call answered still counts that call", async () => {
    const middleware: MiddlewareRunner = {
      run<S extends Stage>(stage: S, envelope: Envelopes[S]): Envelopes[S] {
        if (stage === "llm_response") throw new Error("a middleware failed");
        return envelope;
      },
    };
    const h = await host({}, undefined, "fake", middleware);
    const from = openai.chatRequests().length;
    const failed = await h.runTurn({ sessionId: "f", text: "hi", channel: "test" }).then(() => null, (error: unknown) => error);
    expect(failed).not.toBeNull();
    const reported = reportedSince(openai, from);
    expect(await h.usage.session("f")).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, calls: 1 });
    await h.close();
  });

  test("deleting a session keeps what it spent in the totals", async () => {
    const h = await host();
    await h.runTurn({ sessionId: "gone", text: "hi", channel: "test" });
    const before = await h.usage.totals("day", "2000-01-01");
    await h.deleteSession("gone");
    expect(await h.usage.totals("day", "2000-01-01")).toEqual(before);
    await h.close();
  });
});

describe("budgets", () => {
  // 2026-03-31 23:00 in New York is 2026-04-01 03:00 UTC: days and months follow the configured zone
  const ZONE = "America/New_York";
  const LATE_MARCH_31 = Date.parse("2026-04-01T03:00:00Z");
  const APRIL_1_NY = Date.parse("2026-04-01T04:00:00Z");

  test("daily: spent >= limit refuses the next turn, naming the budget and its reset; below the limit passes", async () => {
    const clock = { now: LATE_MARCH_31 };
    const h = await host({ daily_usd: 1, time_zone: ZONE }, clock);
    const from = openai.chatRequests().length;
    await spend(h, 0.999999, "2026-03-31");
    await h.runTurn({ sessionId: "d1", text: "below the limit", channel: "test" });
    await spend(h, 1, "2026-03-31");
    const error = await refusal(h.runTurn({ sessionId: "d1", text: "over", channel: "test" }));
    expect(error.message).toContain("daily budget of $1");
    expect(error.message).toContain("2026-04-01T04:00:00.000Z");
    expect(error.details).toMatchObject({ budget: "[budget]", period: "daily", limit_usd: 1, resets_at: "2026-04-01T04:00:00.000Z" });
    expect(error.status).toBe(429);
    // refused before its message was stored and before any provider call
    expect((await h.sessions.messages("d1")).map((m) => m.content)).not.toContain("over");
    expect(openai.chatRequests().length - from).toBe(1);
    clock.now = APRIL_1_NY - 1;
    await refusal(h.runTurn({ sessionId: "d1", text: "a millisecond before midnight", channel: "test" }));
    clock.now = APRIL_1_NY;
    await h.runTurn({ sessionId: "d1", text: "a new day", channel: "test" });
    await h.close();
  });

  test("spent exactly the limit refuses; spent below it passes", async () => {
    const clock = { now: LATE_MARCH_31 };
    const h = await host({ channels: { at: { daily_usd: 2 }, below: { daily_usd: 2 }, past: { daily_usd: 2 } } }, clock);
    // binary-exact amounts: the kept total is exactly the limit, not a rounding of it
    await spend(h, 2, "2026-04-01", "at");
    await spend(h, 1.75, "2026-04-01", "below");
    await spend(h, 2.25, "2026-04-01", "past");
    await refusal(h.runTurn({ sessionId: "at", text: "no", channel: "at" }));
    await refusal(h.runTurn({ sessionId: "past", text: "no", channel: "past" }));
    await h.runTurn({ sessionId: "below", text: "fine", channel: "below" });
    await h.close();
  });

  test("monthly: the month's days add up; the next month in the zone starts afresh", async () => {
    const clock = { now: LATE_MARCH_31 };
    const h = await host({ monthly_usd: 10, time_zone: ZONE }, clock);
    await spend(h, 6, "2026-03-02");
    await spend(h, 3.5, "2026-03-20");
    await spend(h, 100, "2026-02-28");
    await h.runTurn({ sessionId: "m", text: "9.5 of 10 this month", channel: "test" });
    await spend(h, 0.5, "2026-03-31");
    const error = await refusal(h.runTurn({ sessionId: "m", text: "over", channel: "test" }));
    expect(error.message).toContain("monthly budget of $10");
    expect(error.details).toMatchObject({ period: "monthly", resets_at: "2026-04-01T04:00:00.000Z" });
    clock.now = APRIL_1_NY;
    await h.runTurn({ sessionId: "m", text: "April", channel: "test" });
    await h.close();
  });

  test("a channel's and a sender's budgets limit only them", async () => {
    const clock = { now: LATE_MARCH_31 };
    const budget = { channels: { telegram: { daily_usd: 1 } }, senders: { "slack:U1": { monthly_usd: 2 } } };
    const h = await host(budget, clock);
    await spend(h, 1, "2026-04-01", "telegram");
    const error = await refusal(h.runTurn({ sessionId: "t", text: "hi", channel: "telegram", userId: "42" }));
    expect(error.message).toContain('channel "telegram"');
    expect(error.details).toMatchObject({ budget: "[budget.channels.telegram]" });
    await h.runTurn({ sessionId: "o", text: "other channel", channel: "slack", userId: "U2" });
    await spend(h, 2, "2026-04-01", "slack", "slack:U1");
    const sender = await refusal(h.runTurn({ sessionId: "s", text: "hi", channel: "slack", userId: "U1" }));
    expect(sender.details).toMatchObject({ budget: '[budget.senders."slack:U1"]' });
    await h.runTurn({ sessionId: "o", text: "another sender", channel: "slack", userId: "U2" });
    await h.close();
  });

  test("a turn reads its user id for sender budgets only (the CLI looks the OS user up when it is read)", async () => {
    for (const [budget, reads] of [[{}, 0], [{ senders: { "cli:ana": { daily_usd: 5 } } }, 1]] as const) {
      const h = await host(budget);
      let read = 0;
      const input = {
        sessionId: "who",
        text: "hi",
        channel: "cli",
        get userId() {
          read++;
          return "ana";
        },
      };
      await h.runTurn(input);
      expect(read > 0 ? 1 : 0).toBe(reads);
      await h.close();
    }
  });

  test("a tool loop that crosses the limit stops before its next model call", async () => {
    const clock = { now: LATE_MARCH_31 };
    const h = await host({ daily_usd: 1 }, clock);
    await spend(h, 0.99999, "2026-04-01");
    const from = openai.chatRequests().length;
    const text = 'use tool memory_store {"key":"k1","content":"over budget"}';
    await refusal(h.runTurn({ sessionId: "loop", text, channel: "test" }));
    expect(openai.chatRequests().length - from).toBe(1);
    // the call that crossed the limit and its tool result are kept, with their usage
    const kept = await h.sessions.messages("loop");
    expect(kept.find((m) => m.toolCalls)?.usage?.cost_usd).toBeGreaterThan(0);
    await h.close();
  });
});
