/** Agents through the built binary: import an elizaOS character, talk to it, list its sessions; its memory is its own. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, runPrx, tempWorkspace } from "../helpers/binary.ts";
import type { TempWorkspace } from "../helpers/workspace.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

const CHARACTER = join(import.meta.dir, "../fixtures/characters/harbor.character.json");

let fake: FakeServer;
let ws: TempWorkspace;

beforeAll(() => {
  fake = startFakeOpenAI();
  ws = tempWorkspace(fakeProviderConfig(fake.url, "", null) + '\n[agent]\nsystem_prompt = "You are main."\n', { prefix: "prx-agents-bin-" });
});
afterAll(async () => {
  await fake.stop();
  ws.cleanup();
});

function lastSystem(): string {
  const body = fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> };
  return body.messages[0]!.content;
}

test("prx agents import prints the table and the plugins' advice; --write adds it to config.toml", async () => {
  const shown = await runPrx(["agents", "import", CHARACTER, "-w", ws.dir]);
  expect(shown.stderr).toBe("");
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("[agents.harbor]");
  expect(shown.stdout).toContain('memory_scope = "own"');
  expect(shown.stdout).toContain("@elizaos/plugin-web-search: remote");
  expect(shown.stdout).toContain("npm install @elizaos/plugin-web-search");
  expect(readFileSync(join(ws.dir, "config.toml"), "utf8")).not.toContain("[agents.harbor]");

  const written = await runPrx(["agents", "import", CHARACTER, "--write", "-w", ws.dir]);
  expect(written.code).toBe(0);
  expect(readFileSync(join(ws.dir, "config.toml"), "utf8")).toContain("[agents.harbor]");
  const again = await runPrx(["agents", "import", CHARACTER, "--write", "-w", ws.dir]);
  expect(again.code).not.toBe(0);
  expect(again.stderr).toContain("has an [agents.harbor] table already");

  const listed = JSON.parse((await runPrx(["agents", "list", "--json", "-w", ws.dir])).stdout);
  expect(listed.agents.map((a: { id: string; memory_scope: string }) => [a.id, a.memory_scope])).toEqual([
    ["main", "shared"],
    ["harbor", "own"],
  ]);
}, 60_000);

test("the imported agent answers with a prompt carrying the character's bio, style and examples; its memory stays its own", async () => {
  const turn = await runPrx(["agent", "--agent", "harbor", "-s", "harbor-1", "-m", "hello", "-w", ws.dir]);
  expect(turn.code).toBe(0);
  expect(turn.stdout).toContain("echo: hello");
  const prompt = lastSystem();
  expect(prompt).toStartWith("# About Harbor\nHas run the old east harbour for thirty years");
  expect(prompt).toContain("# Message Directions for Harbor\nShort sentences");
  expect(prompt).toContain("Harbor: Not after nine. The ebb runs hard past the breakwater.");

  const store = 'use tool memory_store {"key":"berth","content":"the trawler Gull takes berth seven"}';
  expect((await runPrx(["agent", "--agent", "harbor", "-s", "harbor-1", "-m", store, "-w", ws.dir])).code).toBe(0);
  const question = "which berth does the trawler Gull take?";
  expect((await runPrx(["agent", "-s", "main-1", "-m", question, "-w", ws.dir])).code).toBe(0);
  expect(lastSystem()).toStartWith("You are main.");
  expect(lastSystem()).not.toContain("berth seven");
  expect((await runPrx(["agent", "--agent", "harbor", "-s", "harbor-2", "-m", question, "-w", ws.dir])).code).toBe(0);
  expect(lastSystem()).toContain("- berth: the trawler Gull takes berth seven");

  const sessions = JSON.parse((await runPrx(["sessions", "list", "--agent", "harbor", "--json", "-w", ws.dir])).stdout);
  expect(sessions.sessions.map((s: { id: string }) => s.id).sort()).toEqual(["harbor-1", "harbor-2"]);
  const unknown = await runPrx(["agent", "--agent", "ghost", "-m", "hi", "-w", ws.dir]);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('no agent "ghost"');
}, 60_000);
