/**
 * End-to-end through the built binary: usage as the fake OpenAI and Anthropic servers report it (cached tokens
 * included, streamed and not) is kept, summed by `prx usage` and the gateway's routes, and budgets refuse a turn.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeAnthropic } from "../fakes/anthropic-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let openai: FakeServer;
let anthropic: FakeServer;
const cleanups: (() => void)[] = [];
const gateways: RunningGateway[] = [];
const ENV = { PRX_TEST_ANTHROPIC_KEY: "sk-ant-test" };

beforeAll(async () => {
  await ensureBinary();
  openai = startFakeOpenAI({ cachedTokens: 3 });
  anthropic = startFakeAnthropic({ cachedTokens: 5, cacheWriteTokens: 2 });
}, 300_000);

afterAll(async () => {
  for (const gateway of gateways) {
    if (gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
    await gateway.proc.exited;
  }
  await openai.stop();
  await anthropic.stop();
  for (const cleanup of cleanups) cleanup();
});

function workspace(extra = ""): string {
  const config = `default_provider = "fake"
default_model = "fake-model"
[reliability]
retries = 0
[providers.fake]
kind = "openai-compatible"
base_url = "${openai.url}"
[providers.fake.model_info."fake-model"]
input_per_mtok = 1
cached_input_per_mtok = 0.1
output_per_mtok = 2
[providers.claude]
kind = "anthropic"
base_url = "${anthropic.url}"
api_key_env = "PRX_TEST_ANTHROPIC_KEY"
models = ["claude-fake"]
[providers.claude.model_info."claude-fake"]
input_per_mtok = 3
cached_input_per_mtok = 0.3
output_per_mtok = 15
${extra}`;
  const ws = tempWorkspace(config, { prefix: "prx-usage-" });
  cleanups.push(ws.cleanup);
  return ws.dir;
}

interface Sum {
  input: number;
  output: number;
  cached: number;
  calls: number;
}

function reported(fake: FakeServer, from: number): Sum {
  const all = fake.chatRequests().slice(from).map((r) => r.reported!);
  return {
    input: all.reduce((n, r) => n + r.input, 0),
    output: all.reduce((n, r) => n + r.output, 0),
    cached: all.reduce((n, r) => n + r.cached, 0),
    calls: all.length,
  };
}

function cost(sum: Sum, prices: [number, number, number]): number {
  return ((sum.input - sum.cached) * prices[0] + sum.cached * prices[2] + sum.output * prices[1]) / 1e6;
}

async function agent(dir: string, args: string[]): Promise<void> {
  const run = await runPrx(["agent", "-w", dir, ...args], { env: ENV });
  if (run.code !== 0) throw new Error(`prx agent failed (${run.code}): ${run.stderr}`);
}

async function pairedGateway(dir: string): Promise<{ url: string; headers: Record<string, string> }> {
  const gateway = await startGatewayBinary(dir, ENV);
  gateways.push(gateway);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  const { token } = (await paired.json()) as { token: string };
  return { url: gateway.url, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } };
}

describe("usage through the binary", () => {
  test("totals equal the sum of what the OpenAI and Anthropic fakes reported, streamed and not", async () => {
    const dir = workspace();
    const fromOpenAI = openai.chatRequests().length;
    const fromAnthropic = anthropic.chatRequests().length;
    // a stored turn streams from the provider (what was said survives a failure)
    await agent(dir, ["-m", "hello there", "--session", "a"]);
    await agent(dir, ["-m", 'use tool memory_store {"key":"k","content":"v"}', "--session", "a", "--json"]);
    await agent(dir, ["-m", "hi claude", "--session", "b", "--provider", "claude", "--model", "claude-fake"]);
    const gateway = await pairedGateway(dir);
    // stateless turns of the OpenAI-compatible API store no session but count their usage; without stream they
    // ask the provider without streaming
    for (const model of ["fake-model", "claude-fake"]) {
      for (const stream of [false, true]) {
        const completion = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: gateway.headers,
          body: JSON.stringify({ model, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: "user", content: "stateless" }] }),
        });
        expect(completion.status).toBe(200);
        await completion.text();
      }
    }
    const o = reported(openai, fromOpenAI);
    const a = reported(anthropic, fromAnthropic);
    expect([o.calls, a.calls]).toEqual([5, 3]);
    expect(o.cached * a.cached).toBeGreaterThan(0);
    const streamed = (fake: FakeServer, from: number) => new Set(fake.chatRequests().slice(from).map((r) => r.body.stream === true));
    expect(streamed(openai, fromOpenAI)).toEqual(new Set([true, false]));
    expect(streamed(anthropic, fromAnthropic)).toEqual(new Set([true, false]));

    // the gateway adds its turns to the kept totals every USAGE_FLUSH_MS; a report it answers writes them first, so
    // another process (prx usage) then reads them all
    expect((await fetch(`${gateway.url}/api/usage?since=7d`, { headers: gateway.headers })).status).toBe(200);
    const byModel = await runPrx(["usage", "-w", dir, "--group", "model", "--json"]);
    expect(byModel.code).toBe(0);
    const report = JSON.parse(byModel.stdout) as { rows: Array<{ key: string; input_tokens: number; output_tokens: number; cached_input_tokens: number; calls: number; cost_usd: number }> };
    const row = (key: string) => report.rows.find((r) => r.key === key)!;
    expect(row("fake/fake-model")).toMatchObject({ input_tokens: o.input, output_tokens: o.output, cached_input_tokens: o.cached, calls: 5 });
    expect(row("claude/claude-fake")).toMatchObject({ input_tokens: a.input, output_tokens: a.output, cached_input_tokens: a.cached, calls: 3 });
    expect(row("fake/fake-model").cost_usd).toBeCloseTo(cost(o, [1, 2, 0.1]), 12);
    expect(row("claude/claude-fake").cost_usd).toBeCloseTo(cost(a, [3, 15, 0.3]), 12);

    const byDay = await runPrx(["usage", "-w", dir, "--since", "7d"]);
    expect(byDay.code).toBe(0);
    expect(byDay.stdout).toContain("total");
    expect(byDay.stdout).toContain(String(o.input + a.input));

    const session = (await (await fetch(`${gateway.url}/api/sessions/b`, { headers: gateway.headers })).json()) as {
      usage: { input_tokens: number; output_tokens: number; cached_input_tokens: number; calls: number };
      messages: Array<{ role: string; usage?: { cached_input_tokens: number } }>;
    };
    const claudeSession = reported(anthropic, fromAnthropic);
    const stateless = anthropic.chatRequests().slice(fromAnthropic + 1).map((r) => r.reported!);
    expect(session.usage).toMatchObject({
      input_tokens: claudeSession.input - stateless.reduce((n, r) => n + r.input, 0),
      cached_input_tokens: claudeSession.cached - stateless.reduce((n, r) => n + r.cached, 0),
      calls: 1,
    });
    expect(session.messages.filter((m) => m.usage).length).toBe(1);
    const days = (await (await fetch(`${gateway.url}/api/usage?since=7d&group=day`, { headers: gateway.headers })).json()) as {
      total: { input_tokens: number; output_tokens: number; cached_input_tokens: number; calls: number; cost_usd: number };
    };
    expect(days.total).toEqual({ input_tokens: o.input + a.input, output_tokens: o.output + a.output, cached_input_tokens: o.cached + a.cached, calls: 8, cost_usd: expect.any(Number) });
    const bad = await fetch(`${gateway.url}/api/usage?group=week`, { headers: gateway.headers });
    expect(bad.status).toBe(400);
  });

  test("a spent budget refuses the next turn, in the terminal and at the gateway", async () => {
    const dir = workspace(`[budget]\ndaily_usd = 0.000001\n`);
    await agent(dir, ["-m", "the first turn spends more than the budget", "--session", "x"]);
    const from = openai.chatRequests().length;
    const refused = await runPrx(["agent", "-w", dir, "-m", "refused", "--session", "x"], { env: ENV });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("daily budget of $0.000001 is spent");
    expect(refused.stderr).toContain("resets at");
    const gateway = await pairedGateway(dir);
    const answer = await fetch(`${gateway.url}/api/sessions/y/message`, { method: "POST", headers: gateway.headers, body: JSON.stringify({ message: "hi" }) });
    expect(answer.status).toBe(429);
    const body = (await answer.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("BUDGET_EXCEEDED");
    expect(openai.chatRequests().length).toBe(from);
  });

  test("prx doctor says when a model is unknown", async () => {
    const dir = workspace(`[[model_routes]]\nhint = "mystery"\nprovider = "fake"\nmodel = "mystery-model-9"\n`);
    const run = await runPrx(["doctor", "-w", dir], { env: ENV });
    expect(run.stdout).toContain("WARN model fake/mystery-model-9: unknown to prx");
    expect(run.stdout).toContain("OK   model fake/fake-model");
  });
});
