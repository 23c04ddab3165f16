import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import {
  RemoteSectionSchema,
  remoteOptionsFor,
  startRemotePlugin,
  type RemotePluginHandle,
} from "../../../src/plugins/remote/index.ts";
import { EXAMPLE_DIR, hostFixture, toolContext, type Transport } from "./helpers.ts";

const manifest = parse(readFileSync(join(EXAMPLE_DIR, "plugin.toml"), "utf8")) as {
  plugin: { runtime: string; name: string };
  remote: unknown;
};
const remote = RemoteSectionSchema.parse(manifest.remote);

test("the example manifest declares a remote plugin", () => {
  expect(manifest.plugin.runtime).toBe("remote");
  expect(remote).toMatchObject({ entry: "worker.ts", transport: "worker", settings: { GREETING: "Noted" } });
});

describe.each(["worker", "process"] as Transport[])("example-remote over %s", (transport) => {
  const host = hostFixture();
  let handle: RemotePluginHandle;
  afterAll(async () => {
    await handle?.shutdown();
    host.close();
  });

  test("action with callback and memory, provider, service, event, route", async () => {
    handle = await startRemotePlugin({
      name: manifest.plugin.name,
      dir: EXAMPLE_DIR,
      entryPath: join(EXAMPLE_DIR, remote.entry),
      transport,
      settings: remote.settings,
      rpcTimeoutMs: remote.rpc_timeout_ms,
      readyTimeoutMs: remote.ready_timeout_ms,
      host: host.bindings,
    });
    const [tool] = handle.tools();
    expect(tool!.spec.name).toBe("REMEMBER_NOTE");
    expect(tool!.spec.description).toContain("Also known as: SAVE_NOTE, NOTE_THIS");
    expect(tool!.spec.description).toContain("remember that the milk is in the fridge");
    const sent: string[] = [];
    const result = await tool!.execute({ text: "milk is in the fridge" }, toolContext(sent, "s9"));
    expect(result.success).toBe(true);
    expect(sent).toEqual(["Noted: milk is in the fridge"]);
    expect((await host.memory.recall("milk fridge", 5, "s9"))[0]?.content).toBe("milk is in the fridge");
    const event = host.events.find((e) => e.topic === "remote.NOTE_SAVED")!;
    expect(event).toBeDefined();
    expect(handle.eventSubscriptions()).toEqual([{ name: "NOTE_SAVED", topic: "remote.NOTE_SAVED" }]);
    await handle.deliverEvent("NOTE_SAVED", event.payload);
    const [context] = await handle.contextProviders({ text: "hi", sessionId: "s9" });
    expect(context).toMatch(/^It is (morning|afternoon|evening)/);
    expect(await handle.callService("NOTES", "count", [])).toBe(1);
    expect(String(await handle.callService("NOTES", "clear", []).catch((e) => e))).toContain("not an rpcMethod");
    const response = await handle.handleRoute("GET", "/notes", new Request("http://h/plugins/example-remote/notes"));
    const body = (await response.json()) as { notes: Array<{ text: string; id: string }>; saved: string };
    expect(body.notes.map((n) => n.text)).toEqual(["milk is in the fridge"]);
    expect(body.saved).toBe(body.notes[0]!.id);
  });
});

test("remoteOptionsFor maps an admitted plugin; config overrides [remote.settings]", () => {
  const admitted = {
    name: "example-remote",
    version: "0.1.0",
    kind: "remote" as const,
    dir: EXAMPLE_DIR,
    entryPath: join(EXAMPLE_DIR, "worker.ts"),
    capabilities: [],
    resources: {
      maxMemoryMb: 64,
      maxExecutionTimeMs: 1000,
      maxHttpRequestsPerCall: 0,
      maxKvStorageMb: 1,
      maxFuel: null,
    },
    granted: new Set<string>(),
    config: { GREETING: "Overridden" },
    httpAllowlist: [],
    remote,
  };
  const host = hostFixture();
  const options = remoteOptionsFor(admitted, host.bindings);
  expect(options).toMatchObject({
    transport: "worker",
    settings: { GREETING: "Overridden" },
    rpcTimeoutMs: 10_000,
    readyTimeoutMs: 5000,
  });
  expect(() => remoteOptionsFor({ ...admitted, kind: "wasm-component" }, host.bindings)).toThrow("not a remote plugin");
  host.close();
});
