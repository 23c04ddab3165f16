/** End to end through the compiled binary (`bun build.ts`; PRX_BINARY overrides the path). */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ensureBinary, runPrx } from "../../helpers/binary.ts";
import { EXAMPLE_DIR, fakeConfig, TRANSPORTS, workspaceWith, type TestWorkspace, quietLogs } from "./helpers.ts";

quietLogs();

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

let fake: FakeServer;
const workspaces: TestWorkspace[] = [];
beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  await fake.stop();
  for (const ws of workspaces) ws.cleanup();
});

describe.each(TRANSPORTS)("prx chat with a remote plugin (binary, %s)", (transport) => {
  test("the model calls the remote action as a tool; the actionCallback message is printed", async () => {
    const ws = workspaceWith([EXAMPLE_DIR], fakeConfig(fake.url), transport);
    workspaces.push(ws);
    const result = await runPrx(["chat", "-w", ws.root], {
      stdin: 'use tool REMEMBER_NOTE {"text":"feed the cat"}\n',
      env: { PRX_LOG: "error" },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Noted: feed the cat");
    expect(result.stdout).toMatch(/tool said: remembered note mem_\S+/);
    expect(result.stdout.indexOf("Noted: feed the cat")).toBeLessThan(result.stdout.indexOf("tool said:"));

    // the chat cached what the plugin announced: listing it does not start it
    const list = await runPrx(["plugins", "list", "--json", "-w", ws.root], { env: { PRX_LOG: "error" } });
    expect(list.code).toBe(0);
    const plugin = JSON.parse(list.stdout).plugins[0];
    expect([plugin.name, plugin.kind, plugin.status, plugin.remote.transport, plugin.remote.state]).toEqual([
      "example-remote",
      "remote",
      "active",
      transport,
      "idle",
    ]);
    expect(plugin.remote.pid).toBeNull();
    expect(plugin.remote.surfaces.actions).toContain("REMEMBER_NOTE");
    const text = await runPrx(["plugins", "info", "example-remote", "-w", ws.root], { env: { PRX_LOG: "error" } });
    expect(text.stdout).toContain(`remote: ${transport} idle (not started)`);
  }, 60_000);
});
