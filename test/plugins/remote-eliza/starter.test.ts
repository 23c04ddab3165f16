/**
 * The REAL official elizaOS plugin template, `@elizaos/plugin-starter` with `@elizaos/core` as npm installs them,
 * started by the three-line entry a new user writes, through the compiled binary over both transports.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ensureBinary, runPrx } from "../../helpers/binary.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";
import { startGateway } from "./gateway.ts";
import { fakeConfig, TRANSPORTS } from "./helpers.ts";
import { installStarter, STARTER_ENTRY, starterManifest, type StarterInstall } from "./npm-starter.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

// installed (or found in the cache) before the tests are declared, so that an unreachable registry skips them
const install: StarterInstall = installStarter();
const skip = "skip" in install;
if ("skip" in install) console.warn(`SKIPPED the @elizaos/plugin-starter tests: ${install.skip}`);

let fake: FakeServer;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
}, 600_000);
afterAll(async () => {
  await fake.stop();
  for (const cleanup of cleanups) cleanup();
});

/** A workspace whose plugins/starter holds the entry and the npm-installed node_modules (a link to the cache). */
function starterWorkspace(transport: "worker" | "process", nodeModules: string): string {
  const ws = tempWorkspace(fakeConfig(fake.url));
  cleanups.push(ws.cleanup);
  const dir = join(ws.dir, "plugins", "starter");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.toml"), starterManifest(transport));
  writeFileSync(join(dir, "worker.js"), STARTER_ENTRY);
  symlinkSync(nodeModules, join(dir, "node_modules"), "dir");
  return ws.dir;
}

describe.each(TRANSPORTS)("@elizaos/plugin-starter 1.7.2 from npm in the binary (%s)", (transport) => {
  test.skipIf(skip)("active with its service started; action, provider, models and routes work", async () => {
    if ("skip" in install) throw new Error(install.skip);
    const root = starterWorkspace(transport, install.nodeModules);
    const prx = (args: string[]) => runPrx([...args, "-w", root], { env: { PRX_LOG: "error" }, timeoutMs: 60_000 });

    const list = await prx(["plugins", "list", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const plugin = JSON.parse(list.stdout).plugins[0];
    expect({ status: plugin.status, message: plugin.message ?? null }).toEqual({ status: "active", message: null });
    expect(plugin.remote).toMatchObject({ state: "ready", transport, services_started: ["starter"] });
    expect(plugin.remote.surfaces).toEqual({
      actions: ["HELLO_WORLD"],
      providers: ["HELLO_WORLD_PROVIDER"],
      models: ["TEXT_SMALL", "TEXT_LARGE"],
      events: ["MESSAGE_RECEIVED", "VOICE_MESSAGE_RECEIVED", "WORLD_CONNECTED", "WORLD_JOINED"],
      evaluators: [],
      services: ["starter"],
      routes: ["GET /helloworld", "GET /api/time"],
    });

    fake.reset();
    const turn = await prx(["agent", "-m", "use tool HELLO_WORLD {}", "--json"]);
    expect(turn.code, turn.stderr).toBe(0);
    const result = JSON.parse(turn.stdout);
    expect(result.toolCalls.map((c: { call: { name: string }; result: { success: boolean; output: string } }) => [
      c.call.name,
      c.result.success,
      c.result.output,
    ])).toEqual([["HELLO_WORLD", true, "Hello world!"]]);
    expect(result.messages).toEqual(["Hello world!"]);
    expect(result.text).toBe("tool said: Hello world!");
    // the provider's text is in the prompt of the turn
    expect(fake.chatRequests()[0]!.body.messages[0].content).toContain("I am a provider");

    const model = await prx(["agent", "-m", "sing", "--provider", "remote:starter"]);
    expect(model.code, model.stderr).toBe(0);
    expect(model.stdout.trim()).toBe("Never gonna make you cry, never gonna say goodbye, never gonna tell a lie and hurt you...");

    const gateway = await startGateway(root);
    try {
      const get = (path: string) =>
        fetch(`${gateway.url}/plugins/starter${path}`, { headers: { authorization: `Bearer ${gateway.token}` } });
      const hello = await get("/helloworld");
      expect(hello.status).toBe(200);
      expect(await hello.json()).toEqual({ message: "Hello World!" });
      const time = (await (await get("/api/time")).json()) as { timestamp: string; unix: number };
      expect(Math.floor(Date.parse(time.timestamp) / 1000)).toBe(time.unix);
    } finally {
      await gateway.stop();
    }
  }, 180_000);
});
