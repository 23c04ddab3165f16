/**
 * Hybrid recall on the SQLite default through the built binary: with the default provider's `embedding_model`, a
 * memory found only by meaning is recalled (and not without it), an unrelated question recalls nothing, private
 * memories never reach a prompt, and a store killed while its vector is computed keeps the entry, whose vector a
 * later store backfills.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx, tempWorkspace } from "../helpers/binary.ts";
import { spawnPty } from "../helpers/pty.ts";

setDefaultTimeout(60_000);
let fake: FakeOpenAIServer;
let ws: ReturnType<typeof tempWorkspace>;
const withEmbeddings = () => fakeProviderConfig(fake.url, 'embedding_model = "fake-embed"\n');

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  ws = tempWorkspace(withEmbeddings());
});
afterAll(async () => {
  ws.cleanup();
  await fake.stop();
});

const env = () => ({ HOME: ws.dir, OPENAI_API_KEY: "sk-test" });
const prx = (...args: string[]) => runPrx(["-w", ws.dir, ...args], { env: env() });
const config = (text: string) => writeFileSync(join(ws.dir, "config.toml"), text);
const found = async (query: string) => {
  const search = await prx("memory", "search", query, "--json");
  expect(search.code).toBe(0);
  return (JSON.parse(search.stdout) as { entries: Array<{ key: string }> }).entries.map((e) => e.key);
};
const status = async () => {
  const out = await prx("storage", "status", "--json");
  expect(out.code).toBe(0);
  return (JSON.parse(out.stdout) as { vector: { recall: string; detail: string; vectors?: number; pending?: number } }).vector;
};

describe("hybrid recall on SQLite through the binary", () => {
  test("a memory found only by meaning is recalled with embedding_model and not without; unrelated questions recall nothing", async () => {
    expect((await prx("memory", "store", "our_gp", "Our physician is Dr Patel at Hyde Park surgery")).code).toBe(0);
    expect(fake.requests.some((r) => r.path === "/v1/embeddings")).toBe(true);
    expect(await found("who is my doctor")).toEqual(["our_gp"]);
    expect(await found("What's the capital of Australia?")).toEqual([]);
    expect(await status()).toMatchObject({ recall: "hybrid", vectors: 1, pending: 0 });

    config(fakeProviderConfig(fake.url));
    expect(await found("who is my doctor")).toEqual([]);
    expect(await found("physician")).toEqual(["our_gp"]);
    expect((await status()).recall).toBe("fts");
    config(withEmbeddings());
  });

  test("a private memory found by meaning never reaches a prompt; the public one does", async () => {
    expect((await prx("memory", "store", "private_gp", "Private physician: Dr Novak", "--private")).code).toBe(0);
    expect(await found("who is my doctor")).toEqual(expect.arrayContaining(["our_gp", "private_gp"]));
    fake.reset();
    const turn = await prx("agent", "-m", "who is my doctor?");
    expect(turn.code).toBe(0);
    const prompt = JSON.stringify(fake.chatRequests()[0]!.body);
    expect(prompt).toContain("Dr Patel");
    expect(prompt).not.toContain("Novak");
  });

  test("SIGKILL while the entry's vector is computed loses no entry; a later store backfills its vector", async () => {
    // an embeddings endpoint that never answers: the store is killed while it waits
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    const hang = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        asked();
        return new Promise<Response>(() => undefined);
      },
    });
    try {
      config(fakeProviderConfig(`http://127.0.0.1:${hang.port}/v1`, 'embedding_model = "fake-embed"\n'));
      const proc = Bun.spawn([BINARY, "-w", ws.dir, "memory", "store", "vet_contact", "The animal doctor is Meanwood Vets"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env() },
        stdout: "ignore",
        stderr: "ignore",
      });
      await waiting;
      proc.kill("SIGKILL");
      expect(await proc.exited).not.toBe(0);
    } finally {
      await hang.stop(true);
    }
    config(withEmbeddings());
    expect((await prx("memory", "show", "vet_contact")).code).toBe(0);
    expect(await status()).toMatchObject({ pending: 1 });
    expect((await prx("memory", "store", "dentist", "Dentist appointment on Tuesday")).code).toBe(0);
    expect(await status()).toMatchObject({ pending: 0 });
    expect(await found("who is the doctor for the animals")).toContain("vet_contact");
  });

  test("prx memory reindex --model re-embeds every entry with that model", async () => {
    const reindex = await prx("memory", "reindex", "--model", "fake-embed-2", "--json");
    expect(reindex.stderr).toBe("");
    expect(JSON.parse(reindex.stdout)).toEqual({ embedded: 4 });
    const again = await prx("memory", "reindex", "--json");
    // the configured model is back: every entry is embedded by it again
    expect(JSON.parse(again.stdout)).toEqual({ embedded: 4 });
  });

  test("prx memory reindex shows its progress on a terminal", async () => {
    const pty = spawnPty([BINARY, "-w", ws.dir, "memory", "reindex", "--all"], { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env() });
    try {
      await pty.waitFor("embedded 4 memories");
      expect(await pty.exited).toBe(0);
      expect(pty.output()).toContain("\rembedded 4 of 4");
    } finally {
      pty.kill();
    }
  });

  test("prx memory reindex without embedding_model says why there is nothing to embed", async () => {
    config(fakeProviderConfig(fake.url));
    try {
      const refused = await prx("memory", "reindex");
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("does not keep vectors: recall ranks by full-text search");
      expect(refused.stderr).toContain("embedding_model");
      expect((await prx("memory", "show", "our_gp")).code).toBe(0);
    } finally {
      config(withEmbeddings());
    }
  });
});
