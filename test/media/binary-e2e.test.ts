/**
 * Images and voice notes end to end through the compiled binary: `prx agent --image`, the gateway's
 * /v1/chat/completions and a Telegram channel process, against fake OpenAI and Anthropic servers that record what
 * they receive.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "../fakes/anthropic-server.ts";
import type { FakeServer } from "../fakes/common.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { startFakeTelegram } from "../fakes/telegram-server.ts";
import { BINARY, ensureBinary, runPrx, startGatewayBinary } from "../helpers/binary.ts";
import { pairFrom } from "../helpers/pair-from.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";
import { ogg, png } from "./samples.ts";

setDefaultTimeout(60_000);

let openai: FakeOpenAIServer;
let anthropic: FakeServer;
let ws: TempWorkspace;
const image = png(1024, 768, 210 * 1024);
const base64 = Buffer.from(image).toString("base64");

function config(defaults: string): string {
  return `${defaults}
[providers.fake]
kind = "openai-compatible"
base_url = "${openai.url}"
models = ["fake-model", "text-only"]
transcription_model = "whisper-1"
[providers.fake.model_info."text-only"]
vision = false
[providers.claude]
kind = "anthropic"
base_url = "${anthropic.url}"
api_key_env = "FAKE_ANTHROPIC_KEY"
models = ["claude-fake"]
[reliability]
retries = 0
[memory]
auto_recall = false
[gateway]
max_body_bytes = 4194304
`;
}

beforeAll(async () => {
  await ensureBinary();
  openai = startFakeOpenAI({ models: ["fake-model", "text-only"] });
  anthropic = startFakeAnthropic({ models: ["claude-fake"] });
  ws = tempWorkspace(config('default_provider = "fake"\ndefault_model = "fake-model"'), { prefix: "prx-media-e2e-" });
  writeFileSync(join(ws.dir, "photo.png"), image);
});

afterAll(async () => {
  await openai.stop();
  await anthropic.stop();
  ws.cleanup();
});

const env = () => ({ HOME: ws.dir, FAKE_ANTHROPIC_KEY: "k" });
const lastUser = (body: { messages: Array<{ role: string; content: unknown }> }) => body.messages.findLast((m) => m.role === "user")!;

describe("prx agent --image", () => {
  test("an OpenAI-compatible model gets the image as an image_url part", async () => {
    const run = await runPrx(["agent", "-w", ws.dir, "-m", "what is in it?", "--image", join(ws.dir, "photo.png")], { env: env() });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("echo: what is in it?\n");
    expect(lastUser(openai.chatRequests().at(-1)!.body).content).toEqual([
      { type: "text", text: "what is in it?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
    ]);
  });

  test("Anthropic gets an image block with a base64 source", async () => {
    const run = await runPrx(["agent", "-w", ws.dir, "--provider", "claude", "--model", "claude-fake", "-m", "and this?", "--image", join(ws.dir, "photo.png")], { env: env() });
    expect(run.code).toBe(0);
    const sent = anthropic.requests.findLast((r) => r.path === "/v1/messages")!.body;
    expect(sent.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
        { type: "text", text: "and this?" },
      ],
    });
  });

  test("a model without vision gets the note, never a silent drop", async () => {
    const run = await runPrx(["agent", "-w", ws.dir, "--model", "text-only", "-m", "see?", "--image", join(ws.dir, "photo.png")], { env: env() });
    expect(run.code).toBe(0);
    expect(lastUser(openai.chatRequests().at(-1)!.body).content).toBe("see?\n[image: png 1024x768, 210 KB; this model cannot see images]");
  });

  test("a file that is not an image is refused before any model call", async () => {
    writeFileSync(join(ws.dir, "notes.png"), "just text");
    const before = openai.chatRequests().length;
    const run = await runPrx(["agent", "-w", ws.dir, "-m", "x", "--image", join(ws.dir, "notes.png")], { env: env() });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("is not a PNG, JPEG, GIF or WebP image");
    expect(openai.chatRequests().length).toBe(before);
  });
});

describe("the gateway binary", () => {
  test("a data-URL image in /v1/chat/completions reaches OpenAI and Anthropic in their formats", async () => {
    const gateway = await startGatewayBinary(ws.dir, env());
    try {
      const { body } = await pairFrom(gateway.url, gateway.code!, "127.0.0.1");
      const post = (model: string) =>
        fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${body.token}`, "content-type": "application/json" },
          body: JSON.stringify({
            model,
            messages: [{ role: "user", content: [{ type: "text", text: "gateway image" }, { type: "image_url", image_url: { url: `data:image/png;base64,${base64}`, detail: "high" } }] }],
          }),
        });
      expect((await post("fake-model")).status).toBe(200);
      expect(lastUser(openai.chatRequests().at(-1)!.body).content).toEqual([
        { type: "text", text: "gateway image" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64}`, detail: "high" } },
      ]);
      expect((await post("claude-fake")).status).toBe(200);
      expect(anthropic.requests.findLast((r) => r.path === "/v1/messages")!.body.messages.at(-1).content[0]).toEqual({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: base64 },
      });
    } finally {
      gateway.proc.kill("SIGTERM");
      await gateway.proc.exited;
    }
  });
});

describe("a Telegram channel process", () => {
  test("a photo reaches the model and a voice note is transcribed and answered", async () => {
    const tg = startFakeTelegram();
    const dir = tempWorkspace(
      `${config('default_provider = "fake"\ndefault_model = "fake-model"')}[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`,
      { prefix: "prx-media-tg-" },
    );
    const proc = Bun.spawn([BINARY, "channel", "run", "tg", "-w", dir.dir], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.dir, TG_TOKEN: tg.token },
      stdout: "ignore",
      stderr: "pipe",
    });
    try {
      const from = { id: 7, is_bot: false, first_name: "Ada" };
      const chat = { id: 7, type: "private", first_name: "Ada" };
      const photo = tg.file(image, "photos/file_9.png");
      tg.update({ message: { message_id: 1, from, chat, date: 1, caption: "a photo", photo: [{ file_id: photo, file_unique_id: "p", width: 1024, height: 768, file_size: image.length }] } });
      const [first] = await tg.waitForSent(1, 30_000);
      expect(first!.visible).toBe("echo: a photo");
      expect(lastUser(openai.chatRequests().at(-1)!.body).content).toEqual([
        { type: "text", text: "a photo" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
      ]);
      const clip = ogg(3000);
      const voice = tg.file(clip, "voice/file_10.oga");
      tg.update({ message: { message_id: 2, from, chat, date: 2, voice: { file_id: voice, file_unique_id: "v", duration: 2, mime_type: "audio/ogg", file_size: clip.length } } });
      const sent = await tg.waitForSent(2, 30_000);
      expect(sent[1]!.visible).toBe(`echo: [voice note transcript]\nfake transcript of ${clip.length} bytes of audio.ogg`);
      expect(openai.requests.findLast((r) => r.path === "/v1/audio/transcriptions")!.body).toMatchObject({ model: "whisper-1", file: { bytes: clip.length } });
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      await tg.stop();
      dir.cleanup();
    }
  });
});
