import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost } from "../../src/agent/host.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startFakeOpenAI } from "../fakes/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-live-config-host-"));
const fake = startFakeOpenAI();
afterAll(async () => {
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const offline = ConfigSchema.parse({ memory: { backend: "none" } });
const withFake = ConfigSchema.parse({
  default_provider: "fake",
  default_model: "fake-model",
  providers: { fake: { base_url: fake.url, models: ["fake-model"] } },
  memory: { backend: "none" },
  tools: { disabled: ["file_read"] },
});

test("a reload swaps providers, model choice and tools at once; the next turn uses them", async () => {
  const host = await openAgentHost({ workspace: dir, config: offline });
  try {
    expect(host.generation).toBe(1);
    const before = await host.runTurn({ sessionId: "s1", text: "hello", channel: "test" });
    expect(before.provider).toBe("offline");
    expect(host.tools.specs().some((spec) => spec.name === "file_read")).toBe(true);

    expect(await host.reload(withFake)).toEqual({ generation: 2 });
    expect(host.config.default_provider).toBe("fake");
    expect(host.tools.specs().some((spec) => spec.name === "file_read")).toBe(false);
    const after = await host.runTurn({ sessionId: "s1", text: "hello", channel: "test" });
    expect(after.provider).toBe("fake");
    expect(after.text).toBe("echo: hello");
  } finally {
    await host.close();
  }
});

test("a turn in flight keeps the generation it started with", async () => {
  const host = await openAgentHost({ workspace: dir, config: withFake });
  try {
    fake.enqueue({ type: "text", text: "slow answer", delayMs: 300 });
    const running = host.runTurn({ sessionId: "s2", text: "hi", channel: "test" });
    while (fake.chatRequests().length === 0 || host.activeTurns === 0) await Bun.sleep(5);
    await host.reload(offline);
    const result = await running;
    expect(result.provider).toBe("fake");
    expect(result.text).toBe("slow answer");
    expect((await host.runTurn({ sessionId: "s2", text: "next", channel: "test" })).provider).toBe("offline");
  } finally {
    await host.close();
  }
});

test("a configuration whose parts cannot be built is refused and the old one keeps serving", async () => {
  const host = await openAgentHost({ workspace: dir, config: offline });
  try {
    const broken = ConfigSchema.parse({ ...offline, default_provider: "missing" });
    await expect(host.reload(broken)).rejects.toThrow('unknown provider "missing"');
    expect(host.generation).toBe(1);
    expect((await host.runTurn({ sessionId: "s3", text: "still", channel: "test" })).provider).toBe("offline");
  } finally {
    await host.close();
  }
});
