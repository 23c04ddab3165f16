/** The agent host offers skills in the system prompt and the skill tool; a turn's `skills` list (an agent's) narrows both. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { SKILLS_RESCAN_AFTER_MS } from "../../src/skills/limits.ts";
import { skillText, writeSkill } from "./helpers.ts";

let fake: FakeServer;
let host: AgentHost;
let dir: string;

/** A host's config answering through the fake provider. */
function fakeConfig() {
  return ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    autonomy: { level: "full" },
  });
}

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = realpathSync(mkdtempSync(join(tmpdir(), "prx-skills-host-")));
  writeSkill(join(dir, "skills"), "alpha", skillText("alpha", "Alpha things.", "ALPHA BODY at {baseDir}\n"));
  writeSkill(join(dir, ".agents", "skills"), "beta", skillText("beta", "Beta things.", "BETA BODY\n"));
  const config = fakeConfig();
  host = await openAgentHost({ workspace: dir, config, env: { HOME: dir, PATH: process.env.PATH } });
});
afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

function lastRequest(): { system: string; tools: string[] } {
  const body = fake.chatRequests().at(-1)!.body as { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
  return { system: body.messages.find((m) => m.role === "system")!.content, tools: (body.tools ?? []).map((t) => t.function.name) };
}

test("every eligible skill's name and description is in the system prompt and the skill tool reads its body", async () => {
  await host.runTurn({ sessionId: "all", channel: "test", text: "hi" });
  const { system, tools } = lastRequest();
  expect(system).toContain("- alpha: Alpha things.\n- beta: Beta things.");
  expect(system).not.toContain("BODY");
  expect(tools).toContain("skill");
  const read = await host.runTurn({ sessionId: "all", channel: "test", text: 'use tool skill {"name":"beta"}' });
  expect(read.text).toContain("BETA BODY");
});

test("a turn restricted to some skills lists and reads only those; restricted to none, no skill tool", async () => {
  await host.runTurn({ sessionId: "only-alpha", channel: "test", text: "hi", skills: ["alpha"] });
  expect(lastRequest().system).toContain("- alpha: Alpha things.");
  expect(lastRequest().system).not.toContain("beta");
  const refused = await host.runTurn({ sessionId: "only-alpha", channel: "test", text: 'use tool skill {"name":"beta"}', skills: ["alpha"] });
  expect(refused.text).toContain('no skill named "beta" is offered here');
  const alpha = await host.runTurn({ sessionId: "only-alpha", channel: "test", text: 'use tool skill {"name":"alpha"}', skills: ["alpha"] });
  expect(alpha.text).toContain(`ALPHA BODY at ${join(dir, "skills", "alpha")}`);
  await host.runTurn({ sessionId: "none", channel: "test", text: "hi", skills: [] });
  expect(lastRequest().system).not.toContain("## Skills");
  expect(lastRequest().tools).not.toContain("skill");
});

test("a skill folder made while the host runs: in the prompt of the first turn past SKILLS_RESCAN_AFTER_MS, read by the skill tool at once", async () => {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const own = realpathSync(mkdtempSync(join(tmpdir(), "prx-skills-host-clock-")));
  const config = fakeConfig();
  const clocked = await openAgentHost({ workspace: own, config, env: { HOME: own, PATH: process.env.PATH }, now: () => clock.now });
  try {
    await clocked.runTurn({ sessionId: "late", channel: "test", text: "hi" });
    expect(lastRequest().system).not.toContain("## Skills");
    writeSkill(join(own, "skills"), "gamma", skillText("gamma", "Gamma things.", "GAMMA BODY\n"));
    clock.now += SKILLS_RESCAN_AFTER_MS;
    await clocked.runTurn({ sessionId: "late", channel: "test", text: "hi" });
    expect(lastRequest().system).not.toContain("## Skills");
    clock.now += 1;
    await clocked.runTurn({ sessionId: "late", channel: "test", text: "hi" });
    expect(lastRequest().system).toContain("- gamma: Gamma things.");

    // the skill tool (offered while gamma is) reads a skill the last look lacks at once
    writeSkill(join(own, "skills"), "delta", skillText("delta", "Delta things.", "DELTA BODY\n"));
    const read = await clocked.runTurn({ sessionId: "late", channel: "test", text: 'use tool skill {"name":"delta"}' });
    expect(read.text).toContain("DELTA BODY");
    await clocked.runTurn({ sessionId: "late", channel: "test", text: "hi" });
    expect(lastRequest().system).toContain("- delta: Delta things.");
  } finally {
    await clocked.close();
    rmSync(own, { recursive: true, force: true });
  }
});
