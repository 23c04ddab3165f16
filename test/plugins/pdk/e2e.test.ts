/**
 * Plugins built the way PRX plugin authors build them (componentize-js and jco's QuickJS backend against the prx WIT
 * folder as it is; test/fixtures/pdk-js), run end to end through the compiled binary.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ensurePdkPlugins, PDK_PLUGINS } from "../../fixtures/pdk-js/build.ts";
import { pluginKv } from "../../helpers/plugin-kv.ts";
import { ensureBinary, runPrx } from "../../helpers/binary.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

const SHARED_CACHE = join(tmpdir(), "prx-pdk-js-transpile-cache");

let built: string;
let fake: FakeServer;
let markdownServer: ReturnType<typeof Bun.serve>;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  [built] = await Promise.all([ensurePdkPlugins(), ensureBinary()]);
  fake = startFakeOpenAI();
  markdownServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("# Fetched\n- *one*") });
}, 300_000);

afterAll(async () => {
  await fake.stop();
  markdownServer.stop(true);
  for (const cleanup of cleanups) cleanup();
});

function workspace(plugins: readonly string[], extraConfig = ""): string {
  const grants = '[plugins.markdown-tool]\ngrant = ["http-outbound"]\n';
  const config = `default_provider = "fake"\ndefault_model = "fake-model"\nautonomy = { level = "full" }\n${extraConfig}\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${fake.url}"\n${grants}`;
  const ws = tempWorkspace(config, { prefix: "prx-pdk-e2e-", sharedCache: SHARED_CACHE, plugins: plugins.map((name) => join(built, name)) });
  cleanups.push(ws.cleanup);
  return ws.dir;
}

const prx = (root: string, args: string[]) =>
  runPrx([...args, "-w", root], { env: { PRX_LOG: "error" }, timeoutMs: 60_000 });

const kv = pluginKv;

/** The content of the tool message the model got back in the last request. */
const lastToolResult = () =>
  (fake.chatRequests().at(-1)!.body as { messages: { role: string; content: string }[] }).messages.findLast(
    (m) => m.role === "tool",
  )?.content;

describe("plugins built by their authors' toolchains (binary)", () => {
  test("prx plugins list shows every one of them active", async () => {
    const root = workspace(PDK_PLUGINS);
    const result = await prx(root, ["plugins", "list", "--json"]);
    expect(result.stderr).toBe("");
    const list = JSON.parse(result.stdout) as { plugins: { name: string; status: string; message?: string }[] };
    expect(list.plugins.map((p) => [p.name, p.status, p.message ?? ""]).sort()).toEqual(
      [...PDK_PLUGINS].sort().map((name) => [name, "active", ""]),
    );
    // the first test after the fixtures were rebuilt transpiles and instruments all of them (cold caches)
  }, 60_000);

  test("a SpiderMonkey tool runs in a turn, with its markdown inline or fetched through http-outbound", async () => {
    const root = workspace(["markdown-tool"]);
    const inline = await prx(root, ["agent", "-m", 'use tool markdown_to_html {"markdown":"# Hi\\n**bold**"}']);
    expect(inline.stderr).toContain("→ markdown_to_html(");
    expect(inline.stdout.trim()).toBe("tool said: <h1>Hi</h1>\n<p><strong>bold</strong></p>");
    const url = `http://127.0.0.1:${markdownServer.port}/doc.md`;
    const fetched = await prx(root, ["agent", "-m", `use tool markdown_to_html {"url":"${url}"}`]);
    expect(fetched.stdout.trim()).toBe("tool said: <h1>Fetched</h1>\n<li><em>one</em></li>");
    expect(kv(root, "markdown-tool", "invocation_count")).toBe("2");
  });

  test("a QuickJS tool runs in a turn", async () => {
    const root = workspace(["hello-tool-qjs"]);
    const result = await prx(root, ["agent", "-m", 'use tool hello {"name":"Ada"}']);
    expect(result.stdout.trim()).toBe("tool said: Hello, Ada! (greeting #1)");
    expect(lastToolResult()).toBe("Hello, Ada! (greeting #1)");
  });

  test("a hook records the turn's lifecycle events", async () => {
    const root = workspace(["audit-hook"]);
    expect((await prx(root, ["agent", "-m", "audit me"])).code).toBe(0);
    const trail = JSON.parse(kv(root, "audit-hook", "audit") ?? "[]") as { event: string }[];
    expect(trail.map((e) => e.event)).toContain("prx.lifecycle.agent_stop");
    expect(Number(kv(root, "audit-hook", "count:prx.lifecycle.agent_start"))).toBeGreaterThanOrEqual(1);
  });

  test("a cron job runs (probe) and counts in kv", async () => {
    const root = workspace(["counter-cron"]);
    const run = await prx(root, ["plugins", "probe", "cron_run", '{"name":"counter-cron/counter"}', "--json"]);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout).result).toMatchObject({ ok: true, output: "tick 1" });
    expect(kv(root, "counter-cron", "runs")).toBe("1");
  });

  test("a provider answers turns as wasm:js-echo", async () => {
    const root = workspace(["echo-provider"]);
    const result = await prx(root, ["agent", "-m", "hello provider", "--provider", "wasm:js-echo"]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("js-echo says (fake-model): hello provider");
  });

  test('a storage backend serves memory.backend = "wasm:js-map" across processes', async () => {
    const root = workspace(["map-storage"], '[memory]\nbackend = "wasm:js-map"\n');
    fake.enqueue(
      { type: "tool_calls", calls: [{ name: "memory_store", arguments: { key: "tea", content: "likes oolong tea" } }] },
      { type: "text", text: "noted" },
    );
    expect((await prx(root, ["agent", "-m", "remember: I like oolong tea"])).stdout.trim()).toBe("noted");
    expect(kv(root, "map-storage", "m:tea")).toContain("likes oolong tea");
    const count = await prx(root, ["plugins", "probe", "storage", '{"name":"js-map","op":"count"}', "--json"]);
    expect(JSON.parse(count.stdout).result.count).toBe(1);
    expect((await prx(root, ["agent", "-m", "which tea do I like?"])).code).toBe(0);
    expect(JSON.stringify(fake.chatRequests().at(-1)!.body)).toContain("likes oolong tea");
  });

  test("a rate-limiting middleware continues twice, then blocks the third turn of the same user", async () => {
    const root = workspace(["rate-limiter-middleware"]);
    const before = fake.chatRequests().length;
    for (const n of [1, 2]) {
      const ok = await prx(root, ["agent", "-m", `turn ${n}`, "--user", "ada"]);
      expect(ok.stderr).toBe("");
      expect(ok.stdout.trim()).toBe(`echo: turn ${n}`);
    }
    const blocked = await prx(root, ["agent", "-m", "turn 3", "--user", "ada"]);
    expect(blocked.code).toBe(0);
    expect(blocked.stdout.trim()).toBe("Rate limit exceeded. Please wait before making more requests.");
    expect(fake.chatRequests().length - before).toBe(2);
    const other = await prx(root, ["agent", "-m", "turn 1", "--user", "bob"]);
    expect(other.stdout.trim()).toBe("echo: turn 1");
    expect(kv(root, "rate-limiter-middleware", "blocked_total")).toBe("1");
  });
});
