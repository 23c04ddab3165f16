import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { planTurn } from "../../src/agent/plan.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";
import type { ToolSpec } from "../../src/providers/types.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { harness, readSse, type Harness } from "./harness.ts";

let fake: FakeServer;
let h: Harness;
let resolved: string[] = [];
beforeAll(async () => {
  fake = startFakeOpenAI();
  // every configuration's providers, counted where the turn resolves them
  const counting: typeof createProviderResolver = (config, options) => {
    const providers = createProviderResolver(config, options);
    return { resolve: (name) => (resolved.push(name), providers.resolve(name)), names: () => providers.names() };
  };
  h = await harness({ fake, host: { providerResolver: counting } });
});
afterAll(async () => {
  await h.close();
  await fake.stop();
});

describe("the model choice of a turn", () => {
  test("is resolved once per request: a stream's preflight hands its plan to the turn", async () => {
    resolved = [];
    const events = await readSse(
      await h.call("/api/sessions/plan-1/message", { json: { message: "hi" }, headers: { accept: "text/event-stream" } }),
    );
    expect(events.at(-1)!.event).toBe("done");
    expect(resolved).toHaveLength(1);
    resolved = [];
    expect((await h.call("/api/sessions/plan-2/message", { json: { message: "hi" } })).status).toBe(200);
    expect(resolved).toHaveLength(1);
  });

  test("a plan carries the provider, the model and the client's tools", () => {
    const weather: ToolSpec = { name: "get_weather", description: "weather", parameters: { type: "object" } };
    const plan = planTurn(h.host, { clientTools: [weather], toolChoice: "none" });
    expect(plan.choice).toEqual(h.host.resolveModelChoice({}));
    expect(plan.provider.name).toBe(plan.choice.provider);
    expect([...plan.clientNames!]).toEqual(["get_weather"]);
    expect(plan.noTools).toBe(true);
    expect(planTurn(h.host, {}).clientNames).toBeUndefined();
  });
});
