/**
 * The npm-laid-out elizaOS plugin through the compiled binary (`bun build.ts`; PRX_BINARY overrides the path): its
 * packages resolve exactly as `bun` resolves them, with a .js or a .ts entry, over both transports.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { stringToUuid } from "../../../src/plugins/remote/index.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ensureBinary, runPrx } from "../../helpers/binary.ts";
import { startGateway } from "./gateway.ts";
import { AGENT_CONFIG, fakeConfig, NOTES, notesWorkspace, TRANSPORTS, type TestWorkspace } from "./helpers.ts";

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

/** What `bun` itself resolves for the plugin package, run from the plugin's directory. */
function bunPackageReport(pluginDir: string): unknown {
  const script = 'const m = await import("@acme/plugin-notes"); console.log(JSON.stringify(m.packageReport()));';
  const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: pluginDir, stdout: "pipe", stderr: "pipe" });
  expect(run.exitCode, run.stderr.toString()).toBe(0);
  return JSON.parse(run.stdout.toString());
}

const cases = TRANSPORTS.flatMap((transport) => (["worker.js", "worker.ts"] as const).map((entry) => ({ transport, entry })));

describe.each(cases)("an elizaOS plugin with its own node_modules in the binary ($transport, $entry)", ({ transport, entry }) => {
  test("it loads, resolves its packages as bun does, runs its action in a turn and answers its route", async () => {
    const ws = notesWorkspace(fakeConfig(fake.url, AGENT_CONFIG), transport, entry);
    workspaces.push(ws);
    const prx = (args: string[]) => runPrx([...args, "-w", ws.root], { env: { PRX_LOG: "error" }, timeoutMs: 60_000 });

    const list = await prx(["plugins", "list", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const plugin = JSON.parse(list.stdout).plugins.find((p: { name: string }) => p.name === NOTES);
    expect({ status: plugin.status, message: plugin.message ?? null }).toEqual({ status: "active", message: null });
    expect([plugin.remote.state, plugin.remote.transport]).toEqual(["ready", transport]);
    expect(plugin.remote.services_started).toEqual(["notes"]);

    const report = await prx(["agent", "-m", "use tool RUNTIME_REPORT {}", "--json"]);
    expect(report.code, report.stderr).toBe(0);
    const call = JSON.parse(report.stdout).toolCalls[0];
    expect([call.call.name, call.result.success]).toEqual(["RUNTIME_REPORT", true]);
    const output = JSON.parse(call.result.output);
    expect(output.packages).toEqual(bunPackageReport(join(ws.pluginsDir, NOTES)));
    expect(output.packages.values.slugVersion).toBe("2.0.0");
    expect(output.agent.agentId).toBe(stringToUuid("Ada"));
    expect(output.unsupported.createTask.code).toBe("PLUGIN_UNSUPPORTED");

    // the plugin reads the note from the user's message, as elizaOS hands it the message that led to the call
    fake.enqueue({ type: "tool_calls", calls: [{ name: "TAKE_NOTE", arguments: "{}" }] });
    const note = await prx(["agent", "-m", "water the plants"]);
    expect(note.code, note.stderr).toBe(0);
    expect(note.stdout).toContain("Noted: water the plants");
    expect(note.stdout).toContain("tool said: note water-the-plants saved as mem_");

    const gateway = await startGateway(ws.root);
    try {
      // a new process: the service starts empty, the route answers from it
      const response = await fetch(`${gateway.url}/plugins/${NOTES}/notes`, {
        headers: { authorization: `Bearer ${gateway.token}` },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ notes: [] });
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});
