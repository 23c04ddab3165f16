/** `prx models` through the built binary: each provider's model list joined with what prx knows of each model. */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);
let fake: FakeServer;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI({ models: ["gpt-4o-mini", "fake-model"] });
}, 300_000);
afterAll(async () => {
  await fake.stop();
  cleanups.forEach((cleanup) => cleanup());
});

test("models are listed from the provider with known facts; unknown ones with defaults marked; a dead provider says why", async () => {
  const extra = `[providers.fake.model_info."fake-model"]\ncontext_window = 8000\n[providers.gone]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:9/v1"\n`;
  const ws = tempWorkspace(fakeProviderConfig(fake.url, extra), { prefix: "prx-models-" });
  cleanups.push(ws.cleanup);
  const json = await runPrx(["models", "--provider", "fake", "--json", "-w", ws.dir]);
  expect(json.code).toBe(0);
  const [fakeModels] = JSON.parse(json.stdout);
  expect(fakeModels.models).toEqual([
    expect.objectContaining({ id: "gpt-4o-mini", default: false, context_window: 128_000, vision: true, known: "built-in", input_per_mtok: 0.15 }),
    expect.objectContaining({ id: "fake-model", default: true, context_window: 8000, known: "config", input_per_mtok: null }),
  ]);
  const all = await runPrx(["models", "-w", ws.dir]);
  expect(all.code).toBe(1);
  expect(all.stdout).toContain("fake-model (default)");
  expect(all.stdout).toMatch(/gone\n {2}cannot list its models: /);
});
