/**
 * The REAL `@elizaos/plugin-openai` 1.6.0 added with `prx plugins add` by the built binary, its settings in
 * `[plugins.openai.settings]` pointing OPENAI_BASE_URL at fakes answering as OpenAI documents (Chat Completions and
 * the Responses API behind one base URL), used as the provider `remote:openai` through the gateway's
 * `/v1/chat/completions`; the gateway's log (stderr and logs/prx.log) at prx's default level holds no WARN or ERROR.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { serveOneOpenAIBaseUrl, startFakeOpenAIResponses, type FakeServer } from "../../fakes/openai-responses-server.ts";
import { npmBinaryWorkspace, registryUnreachable, warningLines, type NpmBinaryWorkspace } from "./npm-binary.ts";

setDefaultTimeout(180_000);

const PLUGIN = "@elizaos/plugin-openai@1.6.0";

let chat: FakeOpenAIServer;
let responses: FakeServer;
let router: ReturnType<typeof Bun.serve>;
let ws: NpmBinaryWorkspace | undefined;
let registry: string | null = null;

beforeAll(async () => {
  registry = await registryUnreachable("@elizaos/plugin-openai");
  chat = startFakeOpenAI();
  responses = startFakeOpenAIResponses();
  router = serveOneOpenAIBaseUrl(chat.url, responses.url);
  const config =
    `[plugins.openai.settings]\nOPENAI_API_KEY = "sk-test"\nOPENAI_BASE_URL = "http://127.0.0.1:${router.port}/v1"\n` +
    `OPENAI_LARGE_MODEL = "fake-large"\nOPENAI_SMALL_MODEL = "fake-small"\n`;
  ws = await npmBinaryWorkspace(config, "prx-eliza-openai-bin-");
}, 120_000);

afterAll(async () => {
  if (ws) await ws.stop();
  router?.stop(true);
  await chat?.stop();
  await responses?.stop();
});

describe(`${PLUGIN} added with the binary, as the gateway's provider`, () => {
  test("remote:openai answers /v1/chat/completions through the plugin, and the gateway logs no warning", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    await ws!.add(PLUGIN);
    const asked = await ws!.chat("remote:openai", "say hello to prx");
    const text = await asked.text();
    expect(asked.status, text).toBe(200);
    const answer = JSON.parse(text) as { choices: Array<{ message: { content: string } }> };
    expect(answer.choices[0]!.message.content.length).toBeGreaterThan(0);
    // the plugin's own request, with its configured model and the user's words
    const upstream = [...responses.chatRequests(), ...chat.chatRequests()].map((r) => JSON.stringify(r.body));
    expect(upstream.some((body) => body.includes("say hello to prx") && body.includes("fake-large"))).toBe(true);

    const { stderr, log } = await ws!.stop();
    ws = undefined;
    expect(warningLines(stderr)).toEqual([]);
    expect(warningLines(log)).toEqual([]);
  });
});
