/**
 * The REAL `@elizaos/plugin-knowledge` 1.6.1, installed with `prx plugins add` by the built binary into a workspace
 * whose provider has an `embedding_model` (a fake answering /v1/embeddings as OpenAI documents, with meaning-hashed
 * vectors). A document uploaded through the plugin's own route (`POST /documents` with a `fileUrl`, as its panel
 * sends it) is split, embedded through runtime.useModel(TEXT_EMBEDDING) and stored with runtime.createMemory; the
 * chunks route lists it; a question's turn runs the plugin's KNOWLEDGE provider, which embeds the question and finds
 * the fragment with runtime.searchMemories({ embedding }), and its text is in the prompt the provider receives. A file
 * uploaded as multipart (read by the plugin's own multer from req as a stream) is stored and found the same way;
 * deleting a document fails naming runtime.deleteMemory, which remote mode does not honour.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringToUuid } from "../../../src/plugins/remote/agent.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../../fakes/openai-server.ts";
import { fakeProviderConfig } from "../../helpers/binary.ts";
import { npmBinaryWorkspace, registryUnreachable, type NpmBinaryWorkspace } from "./npm-binary.ts";

setDefaultTimeout(180_000);

const PLUGIN = "@elizaos/plugin-knowledge@1.6.1";
const DOCUMENT = "Zorblax facts.\n\nThe capital city of Zorblax is Quuxville, built on seven floating islands.\n";
const UPLOADED = "Glimmerfen notes.\n\nThe river Glimmerfen freezes only on leap days.\n";

let fake: FakeOpenAIServer;
let documents: ReturnType<typeof Bun.serve>;
let ws: NpmBinaryWorkspace | undefined;
let registry: string | null = null;
let uploads: string;

beforeAll(async () => {
  registry = await registryUnreachable("@elizaos/plugin-knowledge");
  fake = startFakeOpenAI();
  documents = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(DOCUMENT, { headers: { "content-type": "text/plain" } }),
  });
  // multer keeps an upload in this folder until the plugin has read it
  uploads = mkdtempSync(join(tmpdir(), "prx-eliza-knowledge-uploads-"));
  const config =
    fakeProviderConfig(fake.url, 'embedding_model = "text-embedding-3-small"\n') +
    `[plugins.knowledge.settings]\nKNOWLEDGE_UPLOAD_DIR = ${JSON.stringify(uploads)}\n`;
  ws = await npmBinaryWorkspace(config, "prx-eliza-knowledge-bin-", "error");
}, 120_000);

afterAll(async () => {
  await ws?.stop();
  documents?.stop(true);
  await fake?.stop();
  if (uploads) rmSync(uploads, { recursive: true, force: true });
});

describe(`${PLUGIN} added with the binary`, () => {
  test("a document uploaded through its route is embedded and stored; a question's prompt carries its KNOWLEDGE text", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const added = await ws!.add(PLUGIN);
    expect(added.stdout).toContain("added @elizaos/plugin-knowledge 1.6.1 as plugins/knowledge");

    const agentId = stringToUuid("prx");
    const upload = await ws!.request("/plugins/knowledge/documents", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fileUrl: `http://127.0.0.1:${documents.port}/zorblax.txt`, agentId }),
    });
    expect(upload.status).toBe(200);
    const uploaded = (await upload.json()) as { success: boolean; data: Array<{ status: string; fragmentCount: number; filename: string }> };
    expect(uploaded.success).toBe(true);
    expect(uploaded.data).toEqual([expect.objectContaining({ status: "success", filename: "zorblax.txt", fragmentCount: 1 })]);
    // the plugin's own batch (prx's hybrid recall also embeds the memories the plugin stores, under their keys)
    const embedded = fake.requests.filter(
      (r) => r.path === "/v1/embeddings" && !(r.body as { input: string[] }).input.some((text) => text.startsWith("remote/knowledge/")),
    );
    expect(embedded).toHaveLength(1);
    expect(JSON.stringify(embedded[0]!.body)).toContain("Quuxville");

    // stored: the plugin's own routes list the document and its fragment
    const listed = (await (await ws!.request("/plugins/knowledge/documents")).json()) as { data: { memories: Array<{ metadata: { originalFilename?: string } }> } };
    expect(listed.data.memories.map((m) => m.metadata.originalFilename)).toContain("zorblax.txt");
    const chunks = (await (await ws!.request("/plugins/knowledge/knowledges")).json()) as { data: { chunks: Array<{ content: { text: string } }> } };
    expect(chunks.data.chunks.some((c) => c.content.text.includes("Quuxville"))).toBe(true);

    const asked = await ws!.chat("fake-model", "What is the capital city of Zorblax?");
    expect(asked.status).toBe(200);
    // the question was embedded by the plugin's provider, and the fragment it found is in the prompt
    const questions = fake.requests.filter((r) => r.path === "/v1/embeddings" && JSON.stringify(r.body).includes("capital city of Zorblax?"));
    expect(questions.length).toBeGreaterThan(0);
    const prompt = JSON.stringify(fake.chatRequests().at(-1)!.body);
    expect(prompt).toContain("# Knowledge\\n- Zorblax facts.\\n\\nThe capital city of Zorblax is Quuxville");
  });

  test("a file uploaded as multipart/form-data (the panel's upload, read by the plugin's multer) is stored and found", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const form = new FormData();
    form.append("agentId", stringToUuid("prx"));
    form.append("files", new Blob([UPLOADED], { type: "text/plain" }), "glimmerfen.txt");
    const upload = await ws!.request("/plugins/knowledge/documents", { method: "POST", body: form });
    const text = await upload.text();
    expect(upload.status, text).toBe(200);
    const uploaded = JSON.parse(text) as { success: boolean; data: Array<{ status: string; filename: string }> };
    expect(uploaded.data).toEqual([expect.objectContaining({ status: "success", filename: "glimmerfen.txt" })]);

    const asked = await ws!.chat("fake-model", "When does the river Glimmerfen freeze?");
    expect(asked.status).toBe(200);
    const prompt = JSON.stringify(fake.chatRequests().at(-1)!.body);
    expect(prompt).toContain("The river Glimmerfen freezes only on leap days.");
  });

  test("deleting a document fails naming the runtime method remote mode does not honour", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const listed = (await (await ws!.request("/plugins/knowledge/documents")).json()) as { data: { memories: Array<{ id: string }> } };
    const deleted = await ws!.request(`/plugins/knowledge/documents/${listed.data.memories[0]!.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(500);
    const body = (await deleted.json()) as { error: { details: string } };
    expect(body.error.details).toStartWith("runtime.deleteMemory is not supported in remote mode: ");
  });
});
