import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { AccessEntry } from "../../src/gateway/access-log.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let client: OpenAI;
let dir: string;
const printed: string[] = [];
const logged: AccessEntry[] = [];

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-openai-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, models: ["fake-model"] } },
    reliability: { retries: 0 },
  });
  host = await openAgentHost({ workspace: dir, config });
  logged.length = 0;
  gateway = await startGateway({
    host,
    port: 0,
    hostname: "127.0.0.1",
    version: "test",
    handleSignals: false,
    print: (l) => printed.push(l),
    accessLog: (entry) => void logged.push(entry),
  });
  const { token } = await gateway.context.auth.tokens.create("openai-client");
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the official openai client against a listening gateway", () => {
  test("start-up prints the listening line and a pairing code (no token existed)", () => {
    expect(printed[0]).toBe(`prx gateway listening on ${gateway.url}`);
    expect(printed[1]).toMatch(/^prx gateway pairing code: [A-Z2-9]{8} /);
  });

  test("chat.completions.create (non-streaming)", async () => {
    const completion = await client.chat.completions.create({
      model: "fake-model",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello client" },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe("echo: hello client");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.model).toBe("fake-model");
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    // Served by Bun.serve's native route: the same pipeline (access log with the token, the JSON upstream call).
    const entry = logged.findLast((e) => e.path === "/v1/chat/completions")!;
    expect(entry).toMatchObject({ method: "POST", status: 200, client: "127.0.0.1" });
    expect(entry.token).toMatch(/^tok_/);
    expect(fake.chatRequests().at(-1)!.body.stream).toBeUndefined();
  });

  test("chat.completions.create with stream: true and include_usage", async () => {
    const stream = await client.chat.completions.create({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream please" }],
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("echo: stream please");
    expect(finish).toBe("stop");
    expect(usage!.total_tokens).toBeGreaterThan(0);
  });

  test("a provider failure mid-stream surfaces as an APIError in the client", async () => {
    fake.enqueue({ type: "stream_error", textBefore: "partial", message: "kaput" });
    const stream = await client.chat.completions.create({
      model: "fake-model",
      stream: true,
      messages: [{ role: "user", content: "x" }],
    });
    const consume = async () => {
      for await (const _ of stream) void _;
    };
    await expect(consume()).rejects.toThrow(/kaput/);
  });

  test("models.list", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(["fake-model"]);
  });

  test("a wrong key is a 401 AuthenticationError", async () => {
    const bad = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "prx_wrong", maxRetries: 0 });
    const error = await Promise.resolve(bad.models.list()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
