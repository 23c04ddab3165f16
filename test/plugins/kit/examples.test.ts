/**
 * The examples users copy from (plugins/), end to end through the compiled binary: each built by `prx plugins build`,
 * its own tests run by `prx plugins test`, installed by `prx plugins install`, then used in real turns of
 * `prx agent` against a fake OpenAI-compatible provider.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { fakeProviderConfig, runPrx } from "../../helpers/binary.ts";
import { pluginKv } from "../../helpers/plugin-kv.ts";
import { copyExample, ensureExamplesBuilt, KIT_EXAMPLES, type BuiltExamples } from "./examples-build.ts";
import { TEST_KIT_CACHE, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const ENV = { PRX_KIT_CACHE: TEST_KIT_CACHE, PRX_LOG: "error" };
const root = tempDir("prx-kit-examples-");
let built: BuiltExamples;
let fake: FakeServer;

beforeAll(async () => {
  built = await ensureExamplesBuilt({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...ENV });
  fake = startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  await fake.stop();
  root.remove();
});

const prx = (args: string[]) => runPrx(args, { env: ENV, timeoutMs: 60_000 });

/** A workspace with the fake provider, `extra` config, and these built examples installed with `prx plugins install`. */
async function workspace(name: string, examples: string[], extra = ""): Promise<string> {
  const ws = join(root.dir, name);
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "config.toml"), fakeProviderConfig(fake.url, extra));
  for (const example of examples) {
    const installed = await prx(["plugins", "install", join(built.dir, example), "-w", ws]);
    expect(installed.stderr).toBe("");
    expect(installed.code).toBe(0);
  }
  return ws;
}

describe("each example's own tests pass through prx plugins test", () => {
  for (const name of [...KIT_EXAMPLES, "example-remote"]) {
    test(name, async () => {
      const dir = join(root.dir, "tested", name);
      // a built example (with its build record: it is not built again), or the remote one as it is
      if (name === "example-remote") copyExample(name, dir);
      else cpSync(join(built.dir, name), dir, { recursive: true });
      const result = await prx(["plugins", "test", dir]);
      expect(result.stderr).toContain(" 0 fail");
      expect(result.code).toBe(0);
    });
  }
});

describe("the examples in real turns", () => {
  test("notes-tool, audit-hook and daily-digest: a tool call, its audit trail, and the day's digest", async () => {
    const ws = await workspace("day", ["notes-tool", "audit-hook", "daily-digest"]);
    const turn = await prx(["agent", "-m", 'use tool notes {"action":"add","text":"buy oat milk"}', "-w", ws]);
    expect(turn.stdout.trim()).toBe("tool said: noted (#1)");
    expect(pluginKv(ws, "notes-tool", "note:0000000001")).toContain('"text":"buy oat milk"');
    expect(pluginKv(ws, "audit-hook", "count:tool_call")).toBe("1");
    expect(pluginKv(ws, "audit-hook", "count:turn_complete")).toBe("1");
    const digest = await prx(["plugins", "probe", "cron_run", '{"name":"daily-digest/digest"}', "--json", "-w", ws]);
    expect(JSON.parse(digest.stdout).result).toMatchObject({
      ok: true,
      output: expect.stringMatching(/: 1 turn in 1 session, 1 tool call \(notes 1\), 0 blocks, 0 errors$/),
    });
  });

  test("pii-redact: the model never sees the e-mail address, and a message with a key is blocked before it", async () => {
    const ws = await workspace("pii", ["pii-redact"]);
    const masked = await prx(["agent", "-m", "please write to ada@example.com", "-w", ws]);
    expect(masked.stdout.trim()).toBe("echo: please write to [email]");
    expect(JSON.stringify(fake.chatRequests().at(-1)!.body)).not.toContain("ada@example.com");
    const before = fake.chatRequests().length;
    const blocked = await prx(["agent", "-m", "my key is sk-proj-abcdefghijklmnopqrstuvwxyz", "-w", ws]);
    expect(blocked.stdout.trim()).toStartWith("That message looks like it contains a secret");
    expect(fake.chatRequests().length).toBe(before);
  });

  test("http-provider answers turns as wasm:http-provider, through http-outbound", async () => {
    const config = `[plugins.http-provider]\ngrant = ["http-outbound"]\n[plugins.http-provider.config]\nbase_url = "${fake.url}"\n`;
    const ws = await workspace("provider", ["http-provider"], config);
    const result = await prx(["agent", "-m", "hello over http", "--provider", "wasm:http-provider", "-w", ws]);
    expect(result.stdout.trim()).toBe("echo: hello over http");
    expect(fake.chatRequests().at(-1)!.body).toMatchObject({ model: "fake-model", messages: expect.arrayContaining([{ role: "user", content: "hello over http" }]) });
  });

  test('kv-memory serves memory.backend = "wasm:kv-memory": a memory stored in one turn is recalled in the next', async () => {
    const ws = await workspace("memory", ["kv-memory"], '[memory]\nbackend = "wasm:kv-memory"\n');
    fake.enqueue(
      { type: "tool_calls", calls: [{ name: "memory_store", arguments: { key: "tea", content: "the user likes oolong tea" } }] },
      { type: "text", text: "noted" },
    );
    expect((await prx(["agent", "-m", "remember that I like oolong tea", "-w", ws])).stdout.trim()).toBe("noted");
    expect(pluginKv(ws, "kv-memory", "w:oolong:tea")).toBe("");
    expect((await prx(["agent", "-m", "which tea do I like?", "-w", ws])).code).toBe(0);
    expect(JSON.stringify(fake.chatRequests().at(-1)!.body)).toContain("the user likes oolong tea");
  });
});
