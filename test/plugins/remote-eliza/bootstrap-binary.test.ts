/**
 * The REAL `@elizaos/plugin-bootstrap` 1.7.2 (elizaOS's own message handling plugin) added with `prx plugins add` by
 * the built binary: the running gateway loads it, its services start (task, and embedding-generation, idle without a
 * TEXT_EMBEDDING model of its own as in elizaOS), its actions are offered as tools, and a gateway turn is answered
 * by prx's loop with bootstrap's providers in it (those that need worlds or components fail naming the method); its
 * task service finds no task and logs no error.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { fakeProviderConfig } from "../../helpers/binary.ts";
import { npmBinaryWorkspace, registryUnreachable, warningLines, type NpmBinaryWorkspace } from "./npm-binary.ts";

setDefaultTimeout(180_000);

const PLUGIN = "@elizaos/plugin-bootstrap@1.7.2";

let fake: FakeOpenAIServer;
let ws: NpmBinaryWorkspace | undefined;
let registry: string | null = null;

beforeAll(async () => {
  registry = await registryUnreachable("@elizaos/plugin-bootstrap");
  fake = startFakeOpenAI();
  ws = await npmBinaryWorkspace(fakeProviderConfig(fake.url), "prx-eliza-bootstrap-bin-", "error");
}, 120_000);

afterAll(async () => {
  await ws?.stop();
  await fake?.stop();
});

describe(`${PLUGIN} added with the binary`, () => {
  test("the gateway loads it with its services started and its actions as tools; a turn is answered", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const added = await ws!.add(PLUGIN);
    expect(added.stdout).toContain("added @elizaos/plugin-bootstrap 1.7.2 as plugins/bootstrap");
    expect(added.stdout).toContain("REPLY");
    const info = (await (await ws!.request("/api/plugins/bootstrap")).json()) as {
      status: string;
      error_code: string | null;
      remote: { state: string; services_started: string[] };
    };
    expect(info.status).toBe("active");
    expect(info.error_code).toBeNull();
    expect(info.remote.state).toBe("ready");
    expect(info.remote.services_started.sort()).toEqual(["embedding-generation", "task"]);

    const asked = await ws!.chat("fake-model", "hello bootstrap");
    const text = await asked.text();
    expect(asked.status, text).toBe(200);
    expect((JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: hello bootstrap");
    const { stderr } = await ws!.stop();
    ws = undefined;
    // its task service polls getTasks every second: it finds no task, and logs no error
    expect(stderr).toContain("[bootstrap]");
    expect(warningLines(stderr).filter((line) => line.includes("task"))).toEqual([]);
  });
});
