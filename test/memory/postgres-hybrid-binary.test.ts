/**
 * Hybrid recall through the built binary: `prx memory store` embeds the entry with the default provider's
 * `embedding_model`, `prx memory search` finds it by a wording full-text search misses, and `prx storage status`
 * says recall is hybrid. PostgreSQL with pgvector is PGlite + pgvector (test/helpers/pglite-server.ts).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { startPglite, type PgliteServer } from "../helpers/pglite-server.ts";

setDefaultTimeout(120_000);
let server: PgliteServer;
let fake: FakeOpenAIServer;
let ws: ReturnType<typeof tempWorkspace>;

beforeAll(async () => {
  server = await startPglite();
  fake = startFakeOpenAI();
  ws = tempWorkspace(
    'default_provider = "fake"\ndefault_model = "fake-model"\n' +
      `[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\nembedding_model = "fake-embed"\n` +
      '[storage]\nbackend = "postgres"\npool_max = 4\n[memory]\nbackend = "postgres"\n',
  );
});
afterAll(async () => {
  ws.cleanup();
  await fake.stop();
  await server.stop();
});

const prx = (...args: string[]) => runPrx(["-w", ws.dir, ...args], { env: { HOME: ws.dir, DATABASE_URL: server.url } });

test("prx memory store embeds, prx memory search finds by meaning, prx storage status says hybrid", async () => {
  const stored = await prx("memory", "store", "gp_contact", "Our physician is Dr Patel");
  expect(stored.code).toBe(0);
  expect(fake.requests.some((r) => r.path === "/v1/embeddings")).toBe(true);

  const search = await prx("memory", "search", "who is my doctor", "--json");
  expect(search.stderr).toBe("");
  expect((JSON.parse(search.stdout) as { entries: Array<{ key: string }> }).entries.map((e) => e.key)).toEqual(["gp_contact"]);

  const status = await prx("storage", "status", "--json");
  expect(status.code).toBe(0);
  expect((JSON.parse(status.stdout) as { vector: { recall: string } }).vector.recall).toBe("hybrid");
});
