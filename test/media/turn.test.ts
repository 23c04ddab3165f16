import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { runChatCommand, type ChatState } from "../../src/chat/commands.ts";
import type { ChatOutput } from "../../src/chat/render.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { imageFromBytes, MESSAGE_MAX_IMAGES } from "../../src/media/index.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { png } from "./samples.ts";

let fake: FakeOpenAIServer;
let host: AgentHost;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-media-turn-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url } },
    reliability: { retries: 0 },
    memory: { auto_recall: false },
    agent: { image_history_turns: 2 },
  });
  host = await openAgentHost({ workspace: dir, config });
});

afterAll(async () => {
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const userMessages = () => (fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user");

describe("images in a stored session", () => {
  test("an image is sent again from the media store for image_history_turns user turns, then as its note", async () => {
    const image = png(800, 600, 3000);
    const url = `data:image/png;base64,${Buffer.from(image).toString("base64")}`;
    await host.runTurn({ sessionId: "pics", channel: "test", text: "first", media: [imageFromBytes(image)] });
    expect(userMessages()[0]!.content).toEqual([{ type: "text", text: "first" }, { type: "image_url", image_url: { url } }]);

    await host.runTurn({ sessionId: "pics", channel: "test", text: "second" });
    expect(userMessages()[0]!.content).toEqual([{ type: "text", text: "first" }, { type: "image_url", image_url: { url } }]);

    await host.runTurn({ sessionId: "pics", channel: "test", text: "third" });
    expect(userMessages()[0]!.content).toBe("first\n[image: png 800x600, 3 KB; shown to the model in an earlier turn]");

    // the session refers to the bytes by hash; deleting it counts the image and removes them
    const sha256 = (await host.sessions.allMessages("pics"))[0]!.media![0]!.sha256!;
    expect(await host.storage.media.get(sha256)).not.toBeNull();
    expect(await host.deleteSession("pics")).toMatchObject({ messages: 6, media: 1 });
    expect(await host.storage.media.get(sha256)).toBeNull();
  });
});

describe("/image in prx chat", () => {
  const lines: string[] = [];
  const out = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(`error: ${m}`), line: (m: string) => lines.push(m) } as unknown as ChatOutput;

  test("attaches images to the next message, up to the limit", async () => {
    const path = join(dir, "pic.png");
    writeFileSync(path, png(32, 16));
    const state: ChatState = { sessionId: "chat-1" };
    expect(await runChatCommand(`/image ${path}`, state, host, out)).toBe(true);
    expect(lines.at(-1)).toBe("attached png 32x16 (1 for your next message)");
    expect(state.images).toHaveLength(1);
    for (let i = 1; i < MESSAGE_MAX_IMAGES; i++) await runChatCommand(`/image ${path}`, state, host, out);
    expect(state.images).toHaveLength(MESSAGE_MAX_IMAGES);
    await expect(runChatCommand(`/image ${path}`, state, host, out)).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    await expect(runChatCommand(`/image ${join(dir, "missing.png")}`, { sessionId: "x" }, host, out)).rejects.toMatchObject({ code: "USAGE" });
  });
});
