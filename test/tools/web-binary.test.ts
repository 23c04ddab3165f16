/**
 * The new tools through the built binary: a fake OpenAI server calls them ("use tool <name> <json>") in a
 * `prx agent -m` turn, and what the tool gave back is read from the tool message the model received.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeSearxng, type FakeSearch } from "../fakes/search-servers.ts";
import { ensureBinary, fakeProviderConfig, runPrx, tempWorkspace } from "../helpers/binary.ts";

setDefaultTimeout(60_000);

let fake: FakeServer;
let searxng: FakeSearch;
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === "/to-metadata"
      ? Response.redirect("http://169.254.169.254/latest/meta-data/", 302)
      : new Response("<html><head><title>Local page</title></head><body><h1>Served on loopback</h1><script>x()</script></body></html>", {
          headers: { "content-type": "text/html" },
        }),
});
const page = `http://127.0.0.1:${site.port}/page`;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  searxng = startFakeSearxng();
}, 300_000);
afterAll(async () => {
  site.stop(true);
  await Promise.all([fake.stop(), searxng.stop()]);
});

/** One turn in a fresh workspace with this [tools] config; returns what the tool answered the model. */
async function toolAnswer(tools: string, message: string, prepare?: (dir: string) => void): Promise<{ content: string; dir: string; cleanup: () => void }> {
  const ws = tempWorkspace(fakeProviderConfig(fake.url, tools));
  prepare?.(ws.dir);
  const run = await runPrx(["agent", "--workspace", ws.dir, "-m", message]);
  expect(run.code).toBe(0);
  const messages = (fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages;
  const tool = messages.find((m) => m.role === "tool");
  expect(tool).toBeDefined();
  return { content: String(tool!.content), dir: ws.dir, cleanup: ws.cleanup };
}

describe("web tools in the binary", () => {
  test("web_fetch of a page on 127.0.0.1 is refused by default", async () => {
    const { content, cleanup } = await toolAnswer("", `use tool web_fetch {"url":"${page}"}`);
    cleanup();
    expect(content).toContain("127.0.0.1 is a loopback (127.0.0.0/8) address, which is refused");
    expect(content).not.toContain("Served on loopback");
  });

  test("with loopback allowed the page's text comes back, and a redirect to the metadata address is still refused", async () => {
    const tools = '[tools.outbound]\nallow_addresses = ["127.0.0.1"]\n';
    const read = await toolAnswer(tools, `use tool web_fetch {"url":"${page}"}`);
    read.cleanup();
    expect(read.content).toContain("Title: Local page");
    expect(read.content).toContain("# Served on loopback");
    expect(read.content).not.toContain("x()");
    const redirected = await toolAnswer(tools, `use tool web_fetch {"url":"http://127.0.0.1:${site.port}/to-metadata"}`);
    redirected.cleanup();
    expect(redirected.content).toContain("169.254.169.254 is a cloud metadata (169.254.169.254) address, which is refused");
  });

  test("web_search asks the configured SearXNG", async () => {
    const { content, cleanup } = await toolAnswer(
      `[tools.web_search]\nbackend = "searxng"\nurl = "${searxng.url}"\nmax_results = 2\n`,
      'use tool web_search {"query":"prx agent"}',
    );
    cleanup();
    expect(content).toContain("prx agent result 1");
    expect(content).toContain("prx agent result 2");
    expect(content).not.toContain("prx agent result 3");
  });

  test("file_edit changes the workspace file", async () => {
    const { content, dir, cleanup } = await toolAnswer("", 'use tool file_edit {"path":"notes.md","old_text":"draft","new_text":"final"}', (d) =>
      writeFileSync(join(d, "notes.md"), "status: draft\n"),
    );
    try {
      expect(content).toContain("edited notes.md");
      expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe("status: final\n");
    } finally {
      cleanup();
    }
  });
});
