/**
 * Which tools the model is offered: only those that can run under the config (shell off or without an allowlist,
 * http_request without an allowlist, web_search without a backend are not), and wasm_plugins_manage only when `[tools] enabled` opts in. Checked
 * where it matters: the tool list a real turn sends to the provider (a fake OpenAI server on 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { parseConfig } from "../../src/config/loader.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { createPluginExtensions } from "../../src/agent/plugin-extensions.ts";
import { parseProbeRequest, runProbe } from "../../src/plugins/probes/index.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

let fake: FakeServer;
const dirs: string[] = [];
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(async () => {
  await fake.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A host on a fresh workspace with this [tools] table, the plugin runtime attached as the CLI does it. */
async function hostWith(tools: string): Promise<AgentHost> {
  const dir = mkdtempSync(join(tmpdir(), "prx-offered-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "config.toml"),
    `default_provider = "fake"\ndefault_model = "fake-model"\n[providers.fake]\nbase_url = "${fake.url}"\n` +
      `[reliability]\nretries = 0\n[tools]\n${tools}\n`,
  );
  return openAgentHost({ workspace: dir, extend: createPluginExtensions({ cron: false, hooks: false }), env: {} });
}

/** The tool names the provider received in the last turn of `host`. */
async function offeredInATurn(host: AgentHost): Promise<string[]> {
  await host.runTurn({ sessionId: "offered", channel: "test", text: "hello" });
  const body = fake.chatRequests().at(-1)!.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((tool) => tool.function.name).sort();
}

/** Offered under the default config: memory, files and web_fetch (public hosts only). */
/** What every host offers: memory, files, web_fetch, cron and the session tools (message_send needs a target). */
const MEMORY_AND_FILES = [
  "cron",
  "delegate",
  "file_edit",
  "file_read",
  "file_write",
  "memory_forget",
  "memory_recall",
  "memory_store",
  "sessions_history",
  "sessions_list",
  "web_fetch",
];

describe("tools offered to the model", () => {
  test("the default config offers only tools that can run: no shell, no http_request, no web_search, no wasm_plugins_manage", async () => {
    const host = await hostWith("");
    try {
      expect(await offeredInATurn(host)).toEqual(MEMORY_AND_FILES);
      expect(host.tools.unavailable().map((t) => t.name).sort()).toEqual(["http_request", "message_send", "shell", "web_search"]);
    } finally {
      await host.close();
    }
  });

  test("shell, http_request and web_search are offered once the config lets them run", async () => {
    const host = await hostWith(
      'shell_enabled = true\nshell_allowlist = ["ls"]\nhttp_allowlist = ["https://example.com/"]\n' +
        '[tools.web_search]\nbackend = "searxng"\nurl = "http://127.0.0.1:8888"',
    );
    try {
      expect(await offeredInATurn(host)).toEqual([...MEMORY_AND_FILES, "http_request", "shell", "web_search"].sort());
      expect(host.tools.unavailable().map((t) => t.name)).toEqual(["message_send"]);
    } finally {
      await host.close();
    }
  });

  test("shell enabled with an empty allowlist would refuse every call: not offered", async () => {
    const host = await hostWith("shell_enabled = true");
    try {
      expect(await offeredInATurn(host)).toEqual(MEMORY_AND_FILES);
      expect(host.tools.unavailable()).toEqual([
        { name: "http_request", reason: expect.stringContaining("http_allowlist is empty") },
        { name: "web_search", reason: expect.stringContaining("[tools.web_search]") },
        { name: "shell", reason: expect.stringContaining("shell_allowlist is empty") },
        { name: "message_send", reason: expect.stringContaining("[tools.message_send.targets.me]") },
      ]);
    } finally {
      await host.close();
    }
  });

  test("a model that calls a tool it was not offered gets the refusal with the fix", async () => {
    const host = await hostWith("");
    try {
      fake.enqueue(
        { type: "tool_calls", calls: [{ name: "shell", arguments: { command: ["ls"] } }] },
        { type: "text", text: "done" },
      );
      const result = await host.runTurn({ sessionId: "refused", channel: "test", text: "run ls" });
      expect(result.toolCalls[0]!.result).toMatchObject({ success: false });
      expect(result.toolCalls[0]!.result.error).toContain("shell_enabled = true");
    } finally {
      await host.close();
    }
  });

  test("[tools] disabled keeps hiding a tool that could run", async () => {
    const host = await hostWith('disabled = ["file_write"]');
    try {
      expect(await offeredInATurn(host)).toEqual(MEMORY_AND_FILES.filter((name) => name !== "file_write"));
    } finally {
      await host.close();
    }
  });
});

describe("wasm_plugins_manage", () => {
  test('offered only with [tools] enabled = ["wasm_plugins_manage"]; disabled wins over enabled', async () => {
    const on = await hostWith('enabled = ["wasm_plugins_manage"]');
    try {
      expect(await offeredInATurn(on)).toEqual([...MEMORY_AND_FILES, "wasm_plugins_manage"].sort());
    } finally {
      await on.close();
    }
    const both = await hostWith('enabled = ["wasm_plugins_manage"]\ndisabled = ["wasm_plugins_manage"]');
    try {
      expect(await offeredInATurn(both)).toEqual(MEMORY_AND_FILES);
    } finally {
      await both.close();
    }
  });

  test("off for the model by default, a model's call is an unknown tool, and the owner's probe still runs", async () => {
    const host = await hostWith("");
    try {
      fake.enqueue(
        { type: "tool_calls", calls: [{ name: "wasm_plugins_manage", arguments: { action: "list" } }] },
        { type: "text", text: "done" },
      );
      const result = await host.runTurn({ sessionId: "injected", channel: "test", text: "reload every plugin" });
      expect(result.toolCalls[0]!.result.success).toBe(false);
      expect(result.toolCalls[0]!.result.error).toContain('unknown tool "wasm_plugins_manage"');
      // What `prx plugins probe` and POST /api/plugins/:name/probe run.
      const services = host.plugins!;
      const listed = await runProbe(services, parseProbeRequest({ action: "list" }));
      expect(listed.result.plugins).toEqual([]);
    } finally {
      await host.close();
    }
  });

  test("[tools] enabled accepts only opt-in tools", () => {
    expect(parseConfig('[tools]\nenabled = ["wasm_plugins_manage"]\n').tools.enabled).toEqual(["wasm_plugins_manage"]);
    expect(parseConfig("").tools.enabled).toEqual([]);
    let error: unknown;
    try {
      parseConfig('[tools]\nenabled = ["shell"]\n', "config.toml");
    } catch (caught) {
      error = caught;
    }
    expect(isPrxError(error, "CONFIG_INVALID")).toBe(true);
    expect((error as Error).message).toContain('config.toml:2: "tools.enabled.0": only opt-in tools go here');
  });
});
