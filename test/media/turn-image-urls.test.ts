/**
 * A provider's image_urls in a real turn: "pass" sends an https image URL on as it is; "fetch" has prx fetch it
 * through the outbound guard, so a URL on a non-public address reaches the model as a note, never as a fetch.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { imageFromHttpsUrl } from "../../src/media/index.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";

let fake: FakeOpenAIServer;
const hosts: AgentHost[] = [];
const dirs: string[] = [];
let hits = 0;
const images = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hits++, new Response("never asked")) });

beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(async () => {
  for (const host of hosts) await host.close();
  await fake.stop();
  images.stop(true);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function hostWith(imageUrls: "pass" | "fetch"): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-image-urls-"));
  dirs.push(dir);
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, image_urls: imageUrls } },
    reliability: { retries: 0 },
    memory: { auto_recall: false },
  });
  const host = await openAgentHost({ workspace: dir, config });
  hosts.push(host);
  return host;
}

const lastUser = () => (fake.chatRequests().at(-1)!.body.messages as Array<{ role: string; content: unknown }>).findLast((m) => m.role === "user")!;

describe("provider image_urls", () => {
  const url = `https://127.0.0.1:${images.port}/cat.png`;

  test('"pass" (the default) hands the URL to the provider', async () => {
    const host = await hostWith("pass");
    await host.runTurn({ sessionId: "pass", channel: "test", text: "look", media: [imageFromHttpsUrl(url)] });
    expect(lastUser().content).toEqual([{ type: "text", text: "look" }, { type: "image_url", image_url: { url } }]);
  });

  test('"fetch" goes through the outbound guard: a loopback image URL becomes a note and is never requested', async () => {
    const host = await hostWith("fetch");
    await host.runTurn({ sessionId: "fetch", channel: "test", text: "look", media: [imageFromHttpsUrl(url)] });
    expect(lastUser().content).toBe(`look\n[image: ${url}; it could not be fetched: 127.0.0.1 is a loopback (127.0.0.0/8) address, which is refused]`);
    expect(hits).toBe(0);
  });
});
