import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { OpenAICompatibleProvider } from "../../src/providers/openai-compatible.ts";
import { EMBED_MAX_DIMENSIONS, EMBED_MAX_INPUTS } from "../../src/providers/openai-constants.ts";
import { withReliability } from "../../src/providers/reliability.ts";
import { fakeEmbedding, startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(() => fake.stop());

const provider = (baseUrl: string, embeddingModel?: string) =>
  new OpenAICompatibleProvider({ name: "fake", baseUrl, ...(embeddingModel ? { embeddingModel } : {}) });

/** A server answering POST /v1/embeddings with `data` (for answers the fake never gives). */
function answering(data: unknown) {
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json(data) });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: Error) => error,
  );
}

describe("OpenAI-compatible embeddings", () => {
  test("one vector per input, in order, from POST /embeddings with the configured model", async () => {
    const p = provider(fake.url, "text-embedding-3-small");
    const out = await p.embed!({ input: ["apples are red", "the sky"] });
    expect(out.embeddings).toEqual([fakeEmbedding("apples are red"), fakeEmbedding("the sky")]);
    expect(out).toMatchObject({ model: "text-embedding-3-small", provider: "fake" });
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    const input = ["apples are red", "the sky"];
    expect(sent.body).toEqual({ model: "text-embedding-3-small", input, encoding_format: "float" });
  });

  test("dimensions are passed on; the input's token count comes back; vectors of another length are a protocol error", async () => {
    const p = provider(fake.url, "text-embedding-3-small");
    const out = await p.embed!({ input: ["short one"], dimensions: 8 });
    expect(out.embeddings[0]).toHaveLength(8);
    expect(out.promptTokens).toBeGreaterThan(0);
    expect(fake.requests.at(-1)!.body).toMatchObject({ dimensions: 8 });
    const server = answering({ data: [{ index: 0, embedding: [1, 2, 3] }], model: "m" });
    try {
      const error = await failure(provider(`http://127.0.0.1:${server.port}/v1`, "m").embed!({ input: ["x"], dimensions: 8 }));
      expect(isPrxError(error, "PROVIDER_PROTOCOL")).toBe(true);
      expect(error.message).toContain("vectors of 3 dimensions, 8 were asked");
    } finally {
      server.stop(true);
    }
  });

  test("a provider without embedding_model has no embed; the reliability wrapper keeps what the provider has", () => {
    const options = { retries: 0, backoff_ms: 1, max_backoff_ms: 1 };
    expect(provider(fake.url).embed).toBeUndefined();
    expect(withReliability(provider(fake.url), [], options).embed).toBeUndefined();
    expect(withReliability(provider(fake.url, "m"), [], options).embed).toBeFunction();
  });

  test(`${EMBED_MAX_INPUTS} inputs pass; one more is refused before anything is sent`, async () => {
    const p = provider(fake.url, "m");
    const texts = Array.from({ length: EMBED_MAX_INPUTS }, (_, i) => `t${i}`);
    expect((await p.embed!({ input: texts })).embeddings).toHaveLength(EMBED_MAX_INPUTS);
    const sent = fake.requests.length;
    const error = await failure(p.embed!({ input: [...texts, "one more"] }));
    expect(isPrxError(error, "BAD_REQUEST")).toBe(true);
    expect(error.message).toContain(`1-${EMBED_MAX_INPUTS} inputs`);
    expect(fake.requests.length).toBe(sent);
  });

  test("answers out of index order are put back in input order", async () => {
    const server = answering({ data: [{ index: 1, embedding: [2] }, { index: 0, embedding: [1] }], model: "m" });
    try {
      const out = await provider(`http://127.0.0.1:${server.port}/v1`, "m").embed!({ input: ["a", "b"] });
      expect(out.embeddings).toEqual([[1], [2]]);
    } finally {
      server.stop(true);
    }
  });

  test(`vectors of ${EMBED_MAX_DIMENSIONS} numbers pass; longer, missing or misshapen ones are protocol errors`, async () => {
    const long = Array.from({ length: EMBED_MAX_DIMENSIONS }, () => 0.5);
    const cases: Array<[unknown, string | null]> = [
      [{ data: [{ index: 0, embedding: long }] }, null],
      [{ data: [{ index: 0, embedding: [...long, 0.5] }] }, "unexpected embeddings answer"],
      [{ data: [{ index: 0, embedding: [1] }] }, "answered 1 embeddings for 2 inputs"],
      [{ embeddings: [[1], [2]] }, "unexpected embeddings answer"],
    ];
    for (const [answer, expected] of cases) {
      const server = answering(answer);
      try {
        const p = provider(`http://127.0.0.1:${server.port}/v1`, "m");
        const inputs = expected === null ? ["a"] : ["a", "b"];
        if (expected === null) {
          expect((await p.embed!({ input: inputs })).embeddings[0]).toHaveLength(EMBED_MAX_DIMENSIONS);
          continue;
        }
        const error = await failure(p.embed!({ input: inputs }));
        expect(isPrxError(error, "PROVIDER_PROTOCOL")).toBe(true);
        expect(error.message).toContain(expected);
      } finally {
        server.stop(true);
      }
    }
  });

  test("an HTTP error from the server is a provider error naming the status", async () => {
    const error = await failure(provider(fake.url, "m").embed!({ input: [""] }));
    expect(isPrxError(error)).toBe(true);
    expect(error.message).toContain("400");
  });
});
