/** Two hosts on one PostgreSQL, as two gateway replicas: what one spends counts against the other's budget. */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { startFakeOpenAI } from "../fakes/openai-server.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const testWithPostgres = await testNeeding("postgres");
const schema = uniqueSchema("usage");
const fake = startFakeOpenAI();
const dirs: string[] = [];

afterAll(async () => {
  await fake.stop();
  await dropSchema(schema);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function replica(clock: { now: number }): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-usage-pg-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, model_info: { "fake-model": { input_per_mtok: 1000, output_per_mtok: 1000 } } } },
    reliability: { retries: 0 },
    storage: { backend: "postgres", schema },
    budget: { channels: { gateway: { daily_usd: 1 } } },
  });
  return openAgentHost({ workspace: dir, config, env: { DATABASE_URL: TEST_DATABASE_URL }, now: () => clock.now });
}

testWithPostgres("a channel budget spent through one replica refuses the next turn on the other", async () => {
  const clock = { now: Date.parse("2026-05-05T10:00:00Z") };
  const [a, b] = [await replica(clock), await replica(clock)];
  try {
    // at $1000 per million tokens, one turn costs more than a cent: spend until the budget is reached through `a`
    let turns = 0;
    while ((await a.usage.spent([{ kind: "channel", key: "gateway" }], "2026-05-05", "2026-05-05")).reduce((n, r) => n + r.cost_usd, 0) < 1) {
      await a.runTurn({ sessionId: `a${turns}`, text: "x".repeat(2000), channel: "gateway" });
      turns++;
    }
    await a.usage.flush();
    const refused = await b.runTurn({ sessionId: "b", text: "hi", channel: "gateway" }).then(() => null, (error: unknown) => error);
    expect(isPrxError(refused, "BUDGET_EXCEEDED")).toBe(true);
    // another channel is not limited
    await b.runTurn({ sessionId: "b2", text: "hi", channel: "openai-other" });
    const totals = await b.usage.totals("channel", "2026-05-05");
    expect(totals.find((row) => row.key === "gateway")!.calls).toBe(turns);
  } finally {
    await a.close();
    await b.close();
  }
}, 60_000);
