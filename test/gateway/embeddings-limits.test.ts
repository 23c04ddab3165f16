/** POST /v1/embeddings on a listening gateway (in process): its limits at the boundary, with the fake OpenAI upstream. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { EMBEDDINGS_INPUT_MAX_CHARS, EMBEDDINGS_MAX_DIMENSIONS, EMBEDDINGS_MAX_INPUTS } from "../../src/gateway/limits.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { FAKE_EMBEDDING_DIMENSIONS, startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let token: string;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-embeddings-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, models: ["fake-model"], embedding_model: "text-embedding-3-small" } },
    reliability: { retries: 0 },
    gateway: { max_body_bytes: 64 * 1024 * 1024 },
  });
  host = await openAgentHost({ workspace: dir, config });
  gateway = await startGateway({ host, port: 0, handleSignals: false, version: "test", print: () => {}, accessLog: () => {} });
  token = (await gateway.context.auth.tokens.create("embeddings")).token;
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function embed(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: "text-embedding-3-small", ...body }),
  });
  return { status: response.status, body: await response.json() };
}

describe("POST /v1/embeddings limits", () => {
  test(`${EMBEDDINGS_MAX_INPUTS} inputs pass, one more is a 400`, async () => {
    const inputs = Array.from({ length: EMBEDDINGS_MAX_INPUTS + 1 }, (_, i) => `w${i}`);
    const within = await embed({ input: inputs.slice(0, -1) });
    expect(within.status).toBe(200);
    expect(within.body.data).toHaveLength(EMBEDDINGS_MAX_INPUTS);
    const over = await embed({ input: inputs });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ type: "invalid_request_error" });
  });

  test(`an input of ${EMBEDDINGS_INPUT_MAX_CHARS} characters passes, one more is a 400; an empty one is a 400`, async () => {
    expect((await embed({ input: "a".repeat(EMBEDDINGS_INPUT_MAX_CHARS) })).status).toBe(200);
    expect((await embed({ input: "a".repeat(EMBEDDINGS_INPUT_MAX_CHARS + 1) })).status).toBe(400);
    expect((await embed({ input: [""] })).status).toBe(400);
  });

  test(`dimensions up to ${EMBEDDINGS_MAX_DIMENSIONS} reach the model; one more is a 400 of prx's`, async () => {
    const before = fake.requests.length;
    const over = await embed({ input: "x", dimensions: EMBEDDINGS_MAX_DIMENSIONS + 1 });
    expect(over.status).toBe(400);
    expect(fake.requests.length).toBe(before);
    // within prx's bound, the model decides: the fake's vectors have FAKE_EMBEDDING_DIMENSIONS, as a real model's cap
    const refused = await embed({ input: "x", dimensions: EMBEDDINGS_MAX_DIMENSIONS });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("dimensions");
    const full = await embed({ input: "x", dimensions: FAKE_EMBEDDING_DIMENSIONS, encoding_format: "float" });
    expect(full.body.data[0].embedding).toHaveLength(FAKE_EMBEDDING_DIMENSIONS);
  });
});
