import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { MemoryTicker } from "../../../src/plugins/remote/host/memory/index.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";
import {
  openRemotePlugin,
  REMOTE_DEFAULT_IDLE_STOP_MS,
  type RemotePluginHandle,
  type StartRemotePluginOptions,
} from "../../../src/plugins/remote/index.ts";
import { descriptorKey, keepsRunning, pluginCodeHash } from "../../../src/plugins/remote/on-demand/index.ts";
import { RemoteSectionSchema } from "../../../src/plugins/remote/manifest.ts";
import { REMOTE_CODE_HASH_MAX_BYTES, REMOTE_CODE_HASH_MAX_FILES } from "../../../src/plugins/remote/limits.ts";
import { hostFixture, type Transport } from "./helpers.ts";

/**
 * A plugin written into a temporary directory: an action, a provider, a lazy service; init fails while a
 * `.fail-init` file sits beside it (a dot-file is not part of the plugin's code hash, so the cache key stays).
 */
const PLUGIN = `
import { existsSync } from "node:fs";
import { join } from "node:path";
class Counter {
  static serviceType = "COUNTER";
  static rpcMethods = ["next"];
  n = 0;
  static async start() { return new Counter(); }
  next() { return ++this.n; }
}
export default {
  name: "lazy",
  actions: [{ name: "PING", description: "answers pong", handler: async () => ({ success: true, text: "pong" }) }],
  providers: [{ name: "TIME", get: async () => ({ text: "it is now" }) }],
  services: [Counter],
  init: async () => {
    if (existsSync(join(import.meta.dir, ".fail-init"))) throw new Error("init refused: .fail-init is present");
  },
};
`;

/** A ticker on timers that count what is armed (`live.size`); a tick is one period of the ticker passed. */
function manualTicker() {
  const clock = fakeTimers();
  const ticker = new MemoryTicker(1000, clock.timers);
  const live = {
    get size() {
      return clock.pending();
    },
  };
  return { ticker, tick: () => clock.advance(ticker.everyMs), live };
}

let root: string;
let host: ReturnType<typeof hostFixture>;
const handles: RemotePluginHandle[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "prx-on-demand-"));
  host = hostFixture();
});
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.shutdown()));
});
afterAll(() => {
  host.close();
  rmSync(root, { recursive: true, force: true });
});

function pluginDir(name: string, source = PLUGIN): { dir: string; cache: string } {
  const dir = join(root, name);
  const cache = join(root, `${name}-cache`);
  require("node:fs").mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.js"), source);
  return { dir, cache };
}

function options(dir: string, transport: Transport, extra: Partial<StartRemotePluginOptions> = {}): StartRemotePluginOptions {
  return {
    name: "lazy",
    dir,
    entryPath: join(dir, "index.js"),
    transport,
    settings: {},
    rpcTimeoutMs: 10_000,
    readyTimeoutMs: 10_000,
    host: host.bindings,
    idleStopMs: REMOTE_DEFAULT_IDLE_STOP_MS,
    ...extra,
  };
}

async function open(o: StartRemotePluginOptions, cache: string): Promise<RemotePluginHandle> {
  const handle = await openRemotePlugin(o, cache);
  handles.push(handle);
  return handle;
}

describe.each(["worker", "process"] as const)("on demand over %s", (transport) => {
  test("the first load starts the plugin and caches its descriptor; the next load does not start it", async () => {
    const { dir, cache } = pluginDir(`first-${transport}`);
    const first = await open(options(dir, transport), cache);
    expect(first.status().state).toBe("ready");
    expect(existsSync(join(cache, "remote-plugins", "lazy.json"))).toBe(true);
    const announced = first.descriptor();
    await first.shutdown();

    const second = await open(options(dir, transport), cache);
    const idle = second.status();
    expect(idle.state).toBe("idle");
    expect(idle.pid).toBeNull();
    expect(idle.readyMs).toBeNull();
    expect(second.descriptor()).toEqual(announced);
    expect(second.tools().map((t) => t.spec.name)).toEqual(["PING"]);

    // the first call starts it and is answered
    expect(await second.callService("COUNTER", "next", [])).toBe(1);
    const running = second.status();
    expect(running.state).toBe("ready");
    expect(running.readyMs).not.toBeNull();
    if (transport === "process") expect(running.pid).toBeGreaterThan(0);
  });

  test("calls arriving while it starts share one start", async () => {
    const { dir, cache } = pluginDir(`shared-${transport}`);
    await (await open(options(dir, transport), cache)).shutdown();
    const handle = await open(options(dir, transport), cache);
    expect(handle.status().state).toBe("idle");
    const answers = await Promise.all(Array.from({ length: 8 }, () => handle.callService("COUNTER", "next", [])));
    // one worker, one service instance: the counter went 1..8 across the calls
    expect([...answers].sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(handle.status().restarts).toBe(0);
  });

  test("stopped after idle_stop_ms without a call, started again by the next one", async () => {
    const { dir, cache } = pluginDir(`idle-${transport}`);
    let now = 0;
    const { ticker, tick, live } = manualTicker();
    const o = options(dir, transport, { idleStopMs: 60_000, idleClock: () => now, memoryTicker: ticker });
    const handle = await open(o, cache);
    expect(await handle.callService("COUNTER", "next", [])).toBe(1);
    now += 59_999;
    tick();
    expect(handle.status().state).toBe("ready");
    now += 1;
    tick();
    expect(handle.status().state).toBe("idle");
    await handle.ready();
    // nothing of it is left on the shared ticker once it is stopped
    await Bun.sleep(0);
    expect(ticker.size).toBe(0);
    expect(live.size).toBe(0);
    // a new worker: the service starts afresh
    expect(await handle.callService("COUNTER", "next", [])).toBe(1);
    expect(handle.status().state).toBe("ready");
    expect(handle.status().lastEvent).toBe("ready");
  });

  test("a call waits for an idle stop under way, then starts the plugin again", async () => {
    const { dir, cache } = pluginDir(`race-${transport}`);
    let now = 0;
    const { ticker, tick } = manualTicker();
    const handle = await open(options(dir, transport, { idleStopMs: 10, idleClock: () => now, memoryTicker: ticker }), cache);
    now += 10;
    tick();
    expect(handle.status().state).toBe("idle");
    expect(await handle.callService("COUNTER", "next", [])).toBe(1);
  });

  test("a start on demand that fails rejects its calls with the start's error; the next call tries again", async () => {
    const { dir, cache } = pluginDir(`fail-${transport}`);
    await (await open(options(dir, transport), cache)).shutdown();
    const handle = await open(options(dir, transport), cache);
    writeFileSync(join(dir, ".fail-init"), "");
    const calls = [handle.callService("COUNTER", "next", []), handle.callService("COUNTER", "next", [])];
    for (const call of calls) {
      const error = await call.then(() => null, (e: unknown) => e);
      expect(isPrxError(error) && error.code).toBe("PLUGIN_LOAD");
      expect((error as Error).message).toContain("init refused: .fail-init is present");
    }
    const status = handle.status();
    expect(status.state).toBe("idle");
    expect(status.lastError).toContain(".fail-init");
    unlinkSync(join(dir, ".fail-init"));
    expect(await handle.callService("COUNTER", "next", [])).toBe(1);
  });
});

describe("what keeps a plugin running", () => {
  test("a service without rpcMethods, or idle_stop_ms = 0; nothing else", () => {
    const ref = (id: string) => ({ rpc: true as const, id });
    const surfaces = {
      name: "p",
      actions: [{ name: "A", handler: ref("action:A") }],
      providers: [{ name: "P", get: ref("provider:P") }],
      events: { MESSAGE_RECEIVED: [ref("event:MESSAGE_RECEIVED#0")] },
      routes: [{ type: "GET", path: "/x", handler: ref("route:GET /x") }],
      services: [{ serviceType: "API", rpcMethods: ["get"], methods: { get: ref("service:API.get") } }],
    };
    expect(keepsRunning(surfaces as never, 1)).toBeNull();
    expect(keepsRunning(surfaces as never, 0)).toContain("idle_stop_ms = 0");
    const background = { ...surfaces, services: [{ serviceType: "POLLER", rpcMethods: [], methods: {} }] };
    expect(keepsRunning(background as never, 1)).toContain("POLLER");
  });

  test("a plugin with a background service is started at load even with a cached descriptor", async () => {
    const source = PLUGIN.replace('static rpcMethods = ["next"];', "").replace("services: [Counter],", "services: [Counter],");
    const { dir, cache } = pluginDir("background", source);
    await (await open(options(dir, "worker"), cache)).shutdown();
    const again = await open(options(dir, "worker"), cache);
    expect(again.status().state).toBe("ready");
    expect(again.status().servicesStarted).toEqual(["COUNTER"]);
  });

  test("idle_stop_ms: default, 0 and the maximum pass; one past the maximum and negatives fail", () => {
    const base = { entry: "index.js" };
    expect(RemoteSectionSchema.parse(base).idle_stop_ms).toBe(REMOTE_DEFAULT_IDLE_STOP_MS);
    expect(RemoteSectionSchema.parse({ ...base, idle_stop_ms: 0 }).idle_stop_ms).toBe(0);
    expect(RemoteSectionSchema.parse({ ...base, idle_stop_ms: 86_400_000 }).idle_stop_ms).toBe(86_400_000);
    expect(RemoteSectionSchema.safeParse({ ...base, idle_stop_ms: 86_400_001 }).success).toBe(false);
    expect(RemoteSectionSchema.safeParse({ ...base, idle_stop_ms: -1 }).success).toBe(false);
  });
});

describe("the cache key", () => {
  test("follows the plugin's code, settings and agent; not its dot-files", () => {
    const { dir } = pluginDir("key");
    const o = options(dir, "worker");
    const key = descriptorKey(o, undefined);
    expect(key).not.toBeNull();
    expect(descriptorKey(o, undefined)).toBe(key);
    writeFileSync(join(dir, ".notes"), "not code");
    expect(descriptorKey(o, undefined)).toBe(key);
    expect(descriptorKey({ ...o, settings: { MODE: "a" } }, undefined)).not.toBe(key);
    const agent = { id: "00000000-0000-0000-0000-000000000001", name: "other", bio: [], system: "", conversationLength: 10 };
    expect(descriptorKey(o, agent as never)).not.toBe(key);
    const before = pluginCodeHash(dir);
    writeFileSync(join(dir, "helper.js"), "export const x = 1;");
    expect(pluginCodeHash(dir)).not.toBe(before);
    // a symlinked file counts by its target's content
    writeFileSync(join(root, "shared.js"), "export const y = 1;");
    require("node:fs").symlinkSync(join(root, "shared.js"), join(dir, "shared.js"));
    const linked = pluginCodeHash(dir);
    expect(linked).not.toBeNull();
    writeFileSync(join(root, "shared.js"), "export const y = 2;");
    expect(pluginCodeHash(dir)).not.toBe(linked);
    require("node:fs").mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
    const withDir = pluginCodeHash(dir);
    writeFileSync(join(dir, "node_modules", "dep", "package.json"), '{"name":"dep","version":"1.0.0"}');
    expect(pluginCodeHash(dir)).not.toBe(withDir);
  });

  test(`${REMOTE_CODE_HASH_MAX_FILES} files are hashed; one more and the plugin is not cached`, () => {
    const dir = join(root, "many-files");
    require("node:fs").mkdirSync(dir, { recursive: true });
    for (let i = 0; i < REMOTE_CODE_HASH_MAX_FILES; i++) writeFileSync(join(dir, `f${i}.js`), "");
    expect(pluginCodeHash(dir)).not.toBeNull();
    writeFileSync(join(dir, "one-more.js"), "");
    expect(pluginCodeHash(dir)).toBeNull();
  }, 60_000);

  test(`${REMOTE_CODE_HASH_MAX_BYTES} bytes are hashed; one more and the plugin is not cached`, () => {
    const dir = join(root, "many-bytes");
    require("node:fs").mkdirSync(dir, { recursive: true });
    // sparse: no disk is used for the zeros
    writeFileSync(join(dir, "big.bin"), "");
    require("node:fs").truncateSync(join(dir, "big.bin"), REMOTE_CODE_HASH_MAX_BYTES);
    expect(pluginCodeHash(dir)).not.toBeNull();
    writeFileSync(join(dir, "one-more.js"), "x");
    expect(pluginCodeHash(dir)).toBeNull();
  }, 60_000);

  test("a changed plugin is started at load again and its new descriptor replaces the cached one", async () => {
    const { dir, cache } = pluginDir("changed");
    await (await open(options(dir, "worker"), cache)).shutdown();
    writeFileSync(join(dir, "index.js"), PLUGIN.replace('name: "PING"', 'name: "PONG"'));
    const changed = await open(options(dir, "worker"), cache);
    expect(changed.status().state).toBe("ready");
    expect(changed.tools().map((t) => t.spec.name)).toEqual(["PONG"]);
    const file = JSON.parse(readFileSync(join(cache, "remote-plugins", "lazy.json"), "utf8"));
    expect(file.descriptor.actions[0].name).toBe("PONG");
    await changed.shutdown();
    const again = await open(options(dir, "worker"), cache);
    expect(again.status().state).toBe("idle");
    expect(again.tools().map((t) => t.spec.name)).toEqual(["PONG"]);
  });

  test("a damaged cache file is ignored: the plugin starts and rewrites it", async () => {
    const { dir, cache } = pluginDir("damaged");
    await (await open(options(dir, "worker"), cache)).shutdown();
    writeFileSync(join(cache, "remote-plugins", "lazy.json"), "{ not json");
    const handle = await open(options(dir, "worker"), cache);
    expect(handle.status().state).toBe("ready");
    expect(() => JSON.parse(readFileSync(join(cache, "remote-plugins", "lazy.json"), "utf8"))).not.toThrow();
  });
});
