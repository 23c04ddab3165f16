/**
 * POST /v1/embeddings served by the compiled binary, driven by the official `openai` client and LangChain's
 * `OpenAIEmbeddings`, with the fake OpenAI server (answering as api.openai.com documents) upstream. Also the legacy
 * POST /v1/completions answer and /v1/models listing the embedding models.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { OpenAIEmbeddings } from "@langchain/openai";
import OpenAI from "openai";
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { ensureBinary, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let fake: FakeOpenAIServer;
let ws: TempWorkspace;
let gateway: RunningGateway;
let token = "";
let client: OpenAI;

const close = (actual: readonly number[], expected: readonly number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 5));
};

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI({ models: ["fake-model"] });
  ws = tempWorkspace(
    `default_provider = "fake"
default_model = "fake-model"
[providers.fake]
kind = "openai-compatible"
base_url = "${fake.url}"
models = ["fake-model"]
embedding_model = "text-embedding-3-small"
[providers.old]
kind = "openai-compatible"
base_url = "${fake.url}"
embedding_model = "text-embedding-ada-002"
[reliability]
retries = 0
`,
    { prefix: "prx-embeddings-" },
  );
  gateway = await startGatewayBinary(ws.dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0 });
}, 300_000);

afterAll(async () => {
  if (gateway && gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway?.proc.exited;
  await fake.stop();
  ws.cleanup();
});

const embeddingRequests = () => fake.requests.filter((r) => r.path === "/v1/embeddings");

describe("POST /v1/embeddings through the binary", () => {
  test("openai embeddings.create, float", async () => {
    const answer = await client.embeddings.create({ model: "text-embedding-3-small", input: ["alpha beta", "gamma"], encoding_format: "float" });
    expect(answer.object).toBe("list");
    expect(answer.model).toBe("text-embedding-3-small");
    expect(answer.data.map((d) => d.index)).toEqual([0, 1]);
    close(answer.data[0]!.embedding, fakeEmbedding("alpha beta"));
    close(answer.data[1]!.embedding, fakeEmbedding("gamma"));
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(embeddingRequests().at(-1)!.body).toMatchObject({ model: "text-embedding-3-small", input: ["alpha beta", "gamma"] });
  });

  test("openai embeddings.create, base64 (decoded by the client) and on the wire", async () => {
    const answer = await client.embeddings.create({ model: "text-embedding-3-small", input: "delta", encoding_format: "base64" });
    // the client hands back what the server sent: the base64 string
    const raw = answer.data[0]!.embedding as unknown as string;
    expect(typeof raw).toBe("string");
    const bytes = Buffer.from(raw, "base64");
    close([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)], fakeEmbedding("delta"));
    // without encoding_format the client asks for base64 itself and decodes it to floats
    const decoded = await client.embeddings.create({ model: "text-embedding-3-small", input: "delta" });
    close(decoded.data[0]!.embedding, fakeEmbedding("delta"));
  });

  test("dimensions on a model that takes it, and the upstream's 400 on one that does not", async () => {
    const short = await client.embeddings.create({ model: "text-embedding-3-small", input: "epsilon", dimensions: 8, encoding_format: "float" });
    expect(short.data[0]!.embedding).toHaveLength(8);
    expect(embeddingRequests().at(-1)!.body).toMatchObject({ dimensions: 8 });
    const refused = await client.embeddings.create({ model: "text-embedding-ada-002", input: "x", dimensions: 8 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("does not support specifying dimensions");
  });

  test("LangChain OpenAIEmbeddings: embedQuery and embedDocuments", async () => {
    const embeddings = new OpenAIEmbeddings({
      model: "text-embedding-3-small",
      apiKey: token,
      configuration: { baseURL: `${gateway.url}/v1` },
      maxRetries: 0,
    });
    close(await embeddings.embedQuery("zeta eta"), fakeEmbedding("zeta eta"));
    const docs = await embeddings.embedDocuments(["theta", "iota kappa"]);
    expect(docs).toHaveLength(2);
    close(docs[1]!, fakeEmbedding("iota kappa"));
  });

  test("an unknown model is OpenAI's 404 model_not_found; token arrays are a 400", async () => {
    const missing = await client.embeddings.create({ model: "nope", input: "x" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    const tokens = await client.embeddings.create({ model: "text-embedding-3-small", input: [[1, 2, 3]] }).catch((e: unknown) => e);
    expect(tokens).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tokens as Error).message).toContain("token arrays are not supported");
  });

  test("/v1/models lists the embedding models beside the chat models", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["fake-model", "text-embedding-3-small", "text-embedding-ada-002"]);
  });

  test("legacy completions: 404 in OpenAI's shape, with a hint to /v1/chat/completions", async () => {
    const error = await client.completions.create({ model: "fake-model", prompt: "once upon" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const body = (error as InstanceType<typeof OpenAI.NotFoundError>).error as { message: string; type: string; code: string; hint: string };
    expect(body).toMatchObject({ type: "invalid_request_error", code: "NOT_FOUND" });
    expect(body.hint).toContain("/v1/chat/completions");
  });
});
