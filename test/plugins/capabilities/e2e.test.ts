/** End to end through the compiled binary (`bun build.ts`; PRX_BINARY overrides the path). */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { pluginKv } from "../../helpers/plugin-kv.ts";
import { BINARY, runPrx } from "../../helpers/binary.ts";
import { binarySuite } from "../../helpers/binary-suite.ts";
import { body, fakeConfig, workspaceWith, type TestWorkspace } from "./helpers.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

const ADDRESS = "carol@example.net";
const REDACTED = "[email redacted]";

const kv = pluginKv;

const prx = (ws: TestWorkspace, args: string[]) =>
  runPrx([...args, "-w", ws.root], { env: { PRX_LOG: "error" }, timeoutMs: 60_000 });

const suite = binarySuite();

function workspace(plugins: string[], config: string): TestWorkspace {
  const ws = workspaceWith(plugins, config);
  suite.later(ws.cleanup);
  return ws;
}

describe("prx agent -m with WASM plugins (binary)", () => {
  test("redaction middleware at all four stages; a hook plugin receives prx.lifecycle.agent_stop", async () => {
    const ws = workspace(["redact-mw", "hook-rec"], fakeConfig(suite.fake.url));
    suite.fake.enqueue({ type: "text", text: `forward it to ${ADDRESS}` });
    const result = await prx(ws, ["agent", "-m", `I am ${ADDRESS}`]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`forward it to ${REDACTED}`);
    expect(JSON.stringify(suite.fake.chatRequests().at(-1)!.body)).not.toContain(ADDRESS);
    expect(JSON.stringify(suite.fake.chatRequests().at(-1)!.body)).toContain(`I am ${REDACTED}`);
    const topics = (kv(ws.root, "hook-rec", "topics") ?? "").split("\n");
    expect(topics).toContain("prx.lifecycle.agent_stop");
  });

  test("a middleware returning garbage leaves the turn intact", async () => {
    const ws = workspace(["garbage-mw"], fakeConfig(suite.fake.url));
    const result = await prx(ws, ["agent", "-m", "still fine?"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("echo: still fine?");
  });

  test("a wasm: provider answers", async () => {
    const ws = workspace(["provider-wat"], 'default_provider = "wasm:wat-echo"\n');
    const result = await prx(ws, ["agent", "-m", "hello wasm"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe("wat-echo says: hello wasm");
    const unknown = await prx(ws, ["agent", "-m", "x", "--provider", "wasm:missing"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("wasm:wat-echo");
  });

  test('memory.backend = "wasm:ts-kv" stores (memory_store tool) and recalls (next process, auto-recall)', async () => {
    const ws = workspace(["storage-ts"], fakeConfig(suite.fake.url, '[memory]\nbackend = "wasm:ts-kv"\n'));
    suite.fake.enqueue(
      {
        type: "tool_calls",
        calls: [{ name: "memory_store", arguments: { key: "drink", content: "likes oolong tea" } }],
      },
      { type: "text", text: "noted" },
    );
    expect((await prx(ws, ["agent", "-m", "remember: I like oolong tea"])).stdout.trim()).toBe("noted");
    expect(kv(ws.root, "storage-ts", "m:drink")).toContain("likes oolong tea");
    expect((await prx(ws, ["agent", "-m", "what tea do I like?"])).code).toBe(0);
    expect(JSON.stringify(suite.fake.chatRequests().at(-1)!.body)).toContain("likes oolong tea");
  });
});

describe("prx plugins probe (binary)", () => {
  test("middleware_test, cron_run, provider_chat, storage, status", async () => {
    const ws = workspace(["redact-mw", "cron-count", "provider-wat", "storage-ts"], "");
    const json = async (args: string[]) => {
      const result = await prx(ws, ["plugins", "probe", ...args, "--json"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout);
    };
    const data = { text: `to ${ADDRESS}`, channel: "cli", session_id: "s" };
    expect(
      (await json(["middleware_test", JSON.stringify({ stage: "outbound", data }), "--plugin", "redact-mw"])).result
        .output.text,
    ).toBe(`to ${REDACTED}`);
    expect((await json(["cron_run", '{"name":"cron-count/count"}'])).result).toMatchObject({
      ok: true,
      output: "run #1",
    });
    expect(
      (await json(["provider_chat", '{"name":"wasm:wat-echo","messages":[{"role":"user","content":"yo"}]}'])).result
        .text,
    ).toBe("wat-echo says: yo");
    await json(["storage", '{"name":"ts-kv","op":"store","key":"a","content":"alpha"}']);
    expect((await json(["storage", '{"name":"ts-kv","op":"count"}'])).result.count).toBe(1);
    const status = await json(["status", "--plugin", "redact-mw"]);
    expect(status.result.plugin.capabilities[0].counters.invocations).toBe(0);
    const bad = await prx(ws, ["plugins", "probe", "storage", '{"name":"ts-kv","op":"explode"}']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("invalid probe");
  });
});

describe("prx gateway (binary)", () => {
  test("a gateway turn passes all four stages of the redaction middleware", async () => {
    const ws = workspace(["redact-mw"], fakeConfig(suite.fake.url));
    const token = (await prx(ws, ["gateway", "token", "create"])).stdout.trim();
    const proc = Bun.spawn([BINARY, "gateway", "--port", "0", "-w", ws.root], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.root, PRX_LOG: "error" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
      let text = "";
      while (!/listening on (\S+)/.test(text)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`gateway exited: ${await new Response(proc.stderr as ReadableStream).text()}`);
        text += new TextDecoder().decode(value);
      }
      reader.releaseLock();
      const url = /listening on (\S+)/.exec(text)![1]!;
      suite.fake.enqueue({ type: "text", text: `ask ${ADDRESS}` });
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: `from ${ADDRESS}` }] }),
      });
      expect(response.status).toBe(200);
      const reply = await body(response);
      expect(reply.choices[0].message.content).toBe(`ask ${REDACTED}`);
      expect(JSON.stringify(suite.fake.chatRequests().at(-1)!.body)).not.toContain(ADDRESS);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 60_000);
});
