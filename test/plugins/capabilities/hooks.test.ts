import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_QUEUE_CAPACITY } from "../../../src/plugins/events/index.ts";
import { HOOKS_RECHECK_MS } from "../../../src/plugins/hooks/feed.ts";
import { startFakeOpenAI } from "../../fakes/index.ts";
import { cpSync } from "node:fs";
import { captureLogs, fakeConfig, kvText, openHost, openScenario, workspaceWith, type HostScenario, type OpenedHost } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";
import { hostDb } from "../../helpers/host-db.ts";
import type { HookAdapter } from "../../../src/plugins/adapters/types.ts";

/** A hook's payload file once whole: the command (tee) may still be writing when the file appears. */
function wholeJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as unknown;
  } catch {
    return null; // not there yet, or half written
  }
}

const topics = (opened: OpenedHost) => (kvText(hostDb(opened.host), "hook-rec", "topics") ?? "").split("\n").filter(Boolean);

describe("hook plugins on the runtime's bus", () => {
  let opened: OpenedHost;
  let scenario: HostScenario;
  beforeAll(async () => void ({ opened } = scenario = await openScenario(["hook-rec"])));
  afterAll(() => scenario.close());

  test("a hook plugin receives prx.lifecycle.agent_stop after a turn", async () => {
    await opened.host.runTurn({ sessionId: "h1", channel: "test", text: "hi" });
    const got = await waitFor(() => (topics(opened).includes("prx.lifecycle.agent_stop") ? topics(opened) : null));
    expect(got.slice(0, 2)).toEqual(["prx.lifecycle.agent_start", "prx.lifecycle.llm_request"]);
    expect(got).toContain("prx.lifecycle.turn_complete");
    // on-event writes "topics" then "last-payload": wait for the second write of the agent_stop delivery.
    const payload = await waitFor(() => {
      const last = JSON.parse(kvText(hostDb(opened.host), "hook-rec", "last-payload") ?? "{}");
      return last.ok === true ? last : null;
    });
    expect(payload).toMatchObject({ session_id: "h1", ok: true });
    const counters = opened.services.runtime.status.get("hook-rec", "hook", "record-topics")!;
    expect(counters.invocations).toBe(got.length);
    expect(counters.lastEvent?.name).toBe("prx.lifecycle.agent_stop");
  });

  test("native names published on the bus are bridged to prx.lifecycle.* before the guest sees them", async () => {
    opened.services.bus!.publish("agent_end", { native: true });
    await waitFor(() => kvText(hostDb(opened.host), "hook-rec", "last-payload") === '{"native":true}');
    expect(topics(opened).at(-1)).toBe("prx.lifecycle.agent_stop");
  });

  test("a reload closes the old generation's pump: every event reaches exactly one generation", async () => {
    const runtime = opened.services.runtime;
    const before = runtime.current();
    const oldHook = before.adapters.hook[0] as HookAdapter;
    const count = topics(opened).length;
    await runtime.reload("hook-rec");
    expect(oldHook.subscribed).toBe(false);
    expect((runtime.current().adapters.hook[0] as HookAdapter).subscribed).toBe(true);
    await runtime.settled();
    expect(before.isReleased).toBe(true);
    const subs = opened.services.bus!.stats().subscriptions.filter((s) => s.name === "hook-rec/record-topics");
    expect(subs).toHaveLength(1);
    opened.services.bus!.publish("prx.lifecycle.error", { n: 1 });
    await waitFor(() => topics(opened).length === count + 1);
    await Bun.sleep(30);
    expect(topics(opened).length).toBe(count + 1);
  });

  test("a bus subscriber that never drains does not slow publishers or other subscribers", async () => {
    const bus = opened.services.bus!;
    const stalled = bus.subscribe("prx.load.*", { name: "stalled" });
    try {
      const n = EVENT_QUEUE_CAPACITY * 20;
      for (let i = 0; i < n; i++) bus.publish("prx.load.tick", { i });
      const stats = stalled.stats();
      expect(stats.queued).toBe(EVENT_QUEUE_CAPACITY);
      expect(stats.dropped).toBe(n - EVENT_QUEUE_CAPACITY);
      // The hook plugin still gets lifecycle events of a turn while the stalled queue stays full.
      await opened.host.runTurn({ sessionId: "h2", channel: "test", text: "again" });
      await waitFor(() => JSON.parse(kvText(hostDb(opened.host), "hook-rec", "last-payload")!).session_id === "h2");
      expect(stalled.stats().queued).toBe(EVENT_QUEUE_CAPACITY);
    } finally {
      stalled.close();
    }
  });
});

describe("hooks.json command hooks", () => {
  test("fire on lifecycle events of a real turn (stdin payload, event name, payload file removed)", async () => {
    captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url));
    const out = join(ws.root, "agent-end.json");
    const envOut = join(ws.root, "env.txt");
    writeFileSync(
      join(ws.root, "hooks.json"),
      JSON.stringify({
        hooks: {
          "Agent-End": [{ command: "tee", args: [out] }],
          "prx.lifecycle.turn_complete": [
            {
              command: "sh",
              args: ["-c", `printf '%s %s' "$PRX_HOOK_EVENT" "$PRX_HOOK_PAYLOAD_FILE" > ${envOut}`],
              stdin_json: false,
            },
          ],
        },
      }),
    );
    const opened = await openHost(ws.root);
    try {
      await opened.host.runTurn({ sessionId: "hj", channel: "test", text: "hello hooks" });
      expect(await waitFor(() => wholeJson(out))).toMatchObject({ session_id: "hj", ok: true });
      const [event, file] = (await waitFor(() => (existsSync(envOut) ? readFileSync(envOut, "utf8") : null))).split(
        " ",
      );
      expect(event).toBe("prx.lifecycle.turn_complete");
      expect(existsSync(file!)).toBe(false);
      const status = opened.services.hooks.status();
      expect(status.actions).toBe(2);
      await waitFor(() => opened.services.hooks.status().runs >= 2);
      expect(opened.services.hooks.status().failures).toBe(0);
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });

  test("with no action in hooks.json nothing subscribes; a file written later is picked up, an API edit at once", async () => {
    captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url));
    const opened = await openHost(ws.root);
    const bus = opened.services.bus!;
    try {
      // Nobody receives lifecycle events, so the turn does not even build them.
      expect(bus.wants!("prx.lifecycle.agent_stop")).toBe(false);
      const out = join(ws.root, "late.json");
      writeFileSync(join(ws.root, "hooks.json"), JSON.stringify({ hooks: { agent_end: [{ command: "tee", args: [out] }] } }));
      await waitFor(() => bus.wants!("prx.lifecycle.agent_stop"), "the hook subscribed", 3_000);
      await opened.host.runTurn({ sessionId: "late", channel: "test", text: "late hooks" });
      expect(await waitFor(() => wholeJson(out))).toMatchObject({ session_id: "late" });
      opened.services.hooks.remove("agent_end");
      expect(bus.wants!("prx.lifecycle.agent_stop")).toBe(false);
      opened.services.hooks.add("turn_complete", { command: "true" });
      expect(bus.wants!("prx.lifecycle.turn_complete")).toBe(true);
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });

  test("an unreadable hooks.json found by the periodic check is logged once; the host stays up", async () => {
    const logs = captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url));
    const opened = await openHost(ws.root);
    try {
      mkdirSync(join(ws.root, "hooks.json")); // a directory where the file should be
      await waitFor(() => logs.some((line) => line.includes("cannot check hooks.json")), "the hooks.json check failure logged", 3_000);
      await Bun.sleep(HOOKS_RECHECK_MS + 100);
      expect(logs.filter((line) => line.includes("cannot check hooks.json"))).toHaveLength(1);
      const result = await opened.host.runTurn({ sessionId: "dir", channel: "test", text: "still here" });
      expect(result.text).toBe("echo: still here");
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });

  test("a hook past its timeout is killed and the turn is unaffected", async () => {
    captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url));
    writeFileSync(
      join(ws.root, "hooks.json"),
      JSON.stringify({ hooks: { agent_end: [{ command: "sleep", args: ["30"], timeout_ms: 100 }] } }),
    );
    const opened = await openHost(ws.root);
    try {
      const result = await opened.host.runTurn({ sessionId: "ht", channel: "test", text: "slow hook" });
      expect(result.text).toBe("echo: slow hook");
      await waitFor(() => opened.services.hooks.status().failures === 1);
      expect(opened.services.hooks.status().lastError?.message).toContain("timed out");
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    }
  });
});

describe("a hook's own events.subscribe", () => {
  test("events of the guest's subscriptions count in the hook's status like manifest events", async () => {
    const logs = captureLogs();
    const fake = startFakeOpenAI();
    const ws = workspaceWith([], fakeConfig(fake.url, '[plugins.hook-kv]\ngrant = ["events"]\n'));
    cpSync(join(import.meta.dir, "../../fixtures/test-wasm/hook-kv"), join(ws.pluginsDir, "hook-kv"), {
      recursive: true,
    });
    const opened = await openHost(ws.root);
    try {
      const hook = opened.services.runtime.current().adapters.hook[0] as HookAdapter;
      expect(hook.plugin).toBe("hook-kv");
      await hook.deliver("prx.test.subscribe", "demo.*"); // the guest subscribes to demo.*
      opened.services.bus!.publish("demo.ping", { n: 1 });
      await waitFor(() => kvText(hostDb(opened.host), "hook-kv", "last-payload") === '{"n":1}');
      const counters = opened.services.runtime.status.get("hook-kv", "hook", "remember-events")!;
      expect(counters.invocations).toBe(2);
      expect(counters.lastEvent?.name).toBe("demo.ping");
    } finally {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
      expect(logs.filter((l) => l.includes("on-event for demo.ping failed"))).toEqual([]);
    }
  });
});
