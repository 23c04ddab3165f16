import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { MESSAGE_MAX_IMAGES } from "../../src/media/index.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { startFakeAnthropic } from "../fakes/anthropic-server.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import type { FakeServer } from "../fakes/common.ts";
import { png, wav } from "./samples.ts";

let openai: FakeOpenAIServer;
let anthropic: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let token: string;
let dir: string;

const image = png(1024, 768, 1500);
const base64 = Buffer.from(image).toString("base64");
const dataUrl = `data:image/png;base64,${base64}`;

beforeAll(async () => {
  openai = startFakeOpenAI({ models: ["fake-model", "text-only"] });
  anthropic = startFakeAnthropic({ models: ["claude-fake"] });
  dir = mkdtempSync(join(tmpdir(), "prx-media-gw-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: {
      fake: {
        base_url: `${openai.url}`,
        models: ["fake-model", "text-only"],
        transcription_model: "whisper-1",
        model_info: { "text-only": { vision: false } },
      },
      claude: { kind: "anthropic", base_url: anthropic.url, models: ["claude-fake"], api_key_env: "FAKE_ANTHROPIC_KEY" },
    },
    reliability: { retries: 0 },
    gateway: { max_body_bytes: 8 * 1024 * 1024 },
  });
  host = await openAgentHost({ workspace: dir, config, env: { FAKE_ANTHROPIC_KEY: "k" } });
  gateway = await startGateway({ host, port: 0, hostname: "127.0.0.1", version: "test", handleSignals: false, print: () => {} });
  token = (await gateway.context.auth.tokens.create("media")).token;
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await openai.stop();
  await anthropic.stop();
  rmSync(dir, { recursive: true, force: true });
});

function complete(model: string, content: unknown, history: unknown[] = []): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [...history, { role: "user", content }] }),
  });
}

const lastUser = (body: { messages: Array<{ role: string; content: unknown }> }) => body.messages.findLast((m) => m.role === "user")!;

describe("images through /v1/chat/completions", () => {
  test("an OpenAI-compatible provider gets the text and the image as image_url parts (data: and https:)", async () => {
    const response = await complete("fake-model", [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: dataUrl, detail: "low" } },
      { type: "image_url", image_url: { url: "https://images.example.com/cat.jpg" } },
    ]);
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).choices[0].message.content).toBe("echo: what is this?");
    expect(lastUser(openai.chatRequests().at(-1)!.body).content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: dataUrl, detail: "low" } },
      { type: "image_url", image_url: { url: "https://images.example.com/cat.jpg" } },
    ]);
  });

  test("Anthropic gets image blocks with a base64 or url source, before the text", async () => {
    const response = await complete("claude-fake", [
      { type: "text", text: "describe" },
      { type: "image_url", image_url: { url: dataUrl } },
      { type: "image_url", image_url: { url: "https://images.example.com/cat.jpg" } },
    ]);
    expect(response.status).toBe(200);
    const sent = anthropic.requests.findLast((r) => r.path === "/v1/messages")!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
        { type: "image", source: { type: "url", url: "https://images.example.com/cat.jpg" } },
        { type: "text", text: "describe" },
      ],
    });
  });

  test("a model without vision gets a note in place of each image, in history too", async () => {
    const response = await complete(
      "text-only",
      [
        { type: "text", text: "and now?" },
        { type: "image_url", image_url: { url: dataUrl } },
      ],
      [
        { role: "user", content: [{ type: "image_url", image_url: { url: "https://images.example.com/a.png" } }] },
        { role: "assistant", content: "ok" },
      ],
    );
    expect(response.status).toBe(200);
    const messages = openai.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)!.content).toBe("and now?\n[image: png 1024x768, 1 KB; this model cannot see images]");
    expect(messages.at(-3)!.content).toBe("[image: https://images.example.com/a.png; this model cannot see images]");
  });

  test("a voice note is transcribed through /v1/audio/transcriptions and the transcript answered", async () => {
    const clip = wav(1);
    const response = await complete("fake-model", [{ type: "input_audio", input_audio: { data: Buffer.from(clip).toString("base64"), format: "wav" } }]);
    expect(response.status).toBe(200);
    const heard = openai.requests.findLast((r) => r.path === "/v1/audio/transcriptions")!;
    expect(heard.body).toMatchObject({ model: "whisper-1", response_format: "json", file: { name: "audio.wav", bytes: clip.length } });
    expect(heard.body.file.type).toContain("wav");
    const expected = `[voice note transcript]\nfake transcript of ${clip.length} bytes of audio.wav`;
    expect(lastUser(openai.chatRequests().at(-1)!.body).content).toBe(expected);
    expect(((await response.json()) as any).choices[0].message.content).toBe(`echo: ${expected}`);
  });

  test(`${MESSAGE_MAX_IMAGES} images pass, one more is a 400; bytes that are no image are a 415`, async () => {
    const parts = (n: number) => [{ type: "text", text: "many" }, ...Array.from({ length: n }, () => ({ type: "image_url", image_url: { url: dataUrl } }))];
    expect((await complete("fake-model", parts(MESSAGE_MAX_IMAGES))).status).toBe(200);
    const over = await complete("fake-model", parts(MESSAGE_MAX_IMAGES + 1));
    expect(over.status).toBe(400);
    expect(JSON.stringify(await over.json())).toContain(`the limit is ${MESSAGE_MAX_IMAGES}`);
    const fake = await complete("fake-model", [{ type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from("<svg/>").toString("base64")}` } }]);
    expect(fake.status).toBe(415);
    const http = await complete("fake-model", [{ type: "image_url", image_url: { url: "http://10.0.0.1/x.png" } }]);
    expect(http.status).toBe(400);
  });
});
