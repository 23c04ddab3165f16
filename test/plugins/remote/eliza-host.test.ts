/** The host side of the elizaOS runtime surface: bindings over a real workspace database, sessions and memory. */
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/index.ts";
import { afterEach, describe, expect, test } from "bun:test";
import { SqliteSessionStore } from "../../../src/agent/sessions.ts";
import { isPrxError } from "../../../src/core/errors.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { defaultAgentIdentity } from "../../../src/plugins/remote/agent-default.ts";
import { selectProviders } from "../../../src/plugins/remote/host/rpc/compose-state.ts";
import { eventParams } from "../../../src/plugins/remote/events.ts";
import { HostRpcArgSchemas } from "../../../src/plugins/remote/host/rpc/args.ts";
import {
  createRemoteHostBindings,
  REMOTE_MEMORIES_MAX_RESULTS,
  REMOTE_RELATIONSHIPS_MAX,
  REMOTE_ROOMS_MAX_IDS,
  REMOTE_SETTINGS_MAX_TOTAL_BYTES,
} from "../../../src/plugins/remote/index.ts";
import type { ProviderDescriptor } from "../../../src/plugins/remote/protocol/index.ts";

const agent = defaultAgentIdentity();
const open: SqliteStorage[] = [];
afterEach(() => {
  for (const storage of open.splice(0)) void storage.close();
});

function host(withMemory = true, published: Array<[string, unknown]> = []) {
  const storage = openSqliteStorage(":memory:");
  open.push(storage);
  const sessions = storage.sessions;
  const memory = new SqliteMemory(() => storage.memory);
  const bindings = createRemoteHostBindings({
    store: storage.remotePlugins,
    pluginKv: storage.pluginKv,
    memory: () => (withMemory ? memory : null),
    providers: {
      resolve: () => {
        throw new Error("no provider in these tests");
      },
      names: () => [],
    },
    events: { publish: (topic: string, payload: unknown) => void published.push([topic, payload]) },
    model: { provider: "none", model: "none" },
    sessions,
  });
  return { bindings, sessions };
}

describe("events a plugin emits", () => {
  test("elizaOS's own names go under eliza.*, other names under remote.*; the host's prx.* is refused", () => {
    const published: Array<[string, unknown]> = [];
    const { bindings } = host(true, published);
    bindings.emitEvent("openai", "MODEL_USED", { type: "TEXT_LARGE", tokens: { total: 3 } });
    bindings.emitEvent("notes", "NOTE_SAVED", { id: "n1" });
    bindings.emitEvent("notes", "custom.topic", { x: 1 });
    expect(published).toEqual([
      ["eliza.MODEL_USED", { plugin: "openai", name: "MODEL_USED", payload: { type: "TEXT_LARGE", tokens: { total: 3 } } }],
      ["remote.NOTE_SAVED", { plugin: "notes", name: "NOTE_SAVED", payload: { id: "n1" } }],
      ["custom.topic", { plugin: "notes", name: "custom.topic", payload: { x: 1 } }],
    ]);
    expect(() => bindings.emitEvent("notes", "prx.lifecycle.agent_start", {})).toThrow("the prx.* namespace is reserved for the host");
  });
});

describe("settings", () => {
  test(`persisted settings may take ${REMOTE_SETTINGS_MAX_TOTAL_BYTES} bytes (keys and values); one byte more is refused`, () => {
    const { bindings } = host();
    const value = (n: number) => "v".repeat(n - JSON.stringify("").length);
    const chunk = 60 * 1024;
    let used = 0;
    for (let i = 0; used + chunk + 4 < REMOTE_SETTINGS_MAX_TOTAL_BYTES; i++, used += chunk + 4) {
      bindings.setSetting("p", `k${String(i).padStart(3, "0")}`, value(chunk));
    }
    const last = REMOTE_SETTINGS_MAX_TOTAL_BYTES - used - 4;
    expect(() => bindings.setSetting("p", "last", value(last + 1))).toThrow(`over ${REMOTE_SETTINGS_MAX_TOTAL_BYTES}`);
    bindings.setSetting("p", "last", value(last));
    expect(Object.keys(bindings.listSettings("p"))).toHaveLength(Math.round(used / (chunk + 4)) + 1);
    // an update is measured without the value it replaces
    bindings.setSetting("p", "last", value(last));
    bindings.setSetting("other", "last", value(last));
  });
});

describe("cache (plugin KV)", () => {
  test("values round-trip as JSON; the quota is the byte count of keys and values: at it passes, one past fails", async () => {
    const { bindings } = host();
    await bindings.setCache("p", "k", { a: [1, null] }, 100);
    expect(await bindings.getCache("p", "k")).toEqual({ a: [1, null] });
    expect(await bindings.getCache("other", "k")).toBeUndefined();
    const quota = 64;
    const fill = (n: number) => "x".repeat(n - "q".length - JSON.stringify("").length);
    await expect(bindings.setCache("q", "q", fill(quota + 1), quota)).rejects.toThrow("kv quota");
    await bindings.setCache("q", "q", fill(quota), quota);
    expect(await bindings.deleteCache("q", "q")).toBe(true);
    expect(await bindings.deleteCache("q", "q")).toBe(false);
  });
});

describe("memories", () => {
  test(`getMemories returns at most ${REMOTE_MEMORIES_MAX_RESULTS}, newest first, filtered by room, entity, time and unique`, async () => {
    const { bindings } = host();
    for (let i = 0; i <= REMOTE_MEMORIES_MAX_RESULTS; i++) {
      await bindings.createMemory("p", { roomId: "r", entityId: i % 2 ? "odd" : "even", createdAt: i, unique: i === 3, content: { text: `m${i}` } }, "facts");
    }
    const get = (extra: Record<string, unknown>) =>
      bindings.getMemories("p", { tableName: "facts", ...extra }, agent).then((ms) => ms.map((m) => m.content.text));
    expect(await get({ count: REMOTE_MEMORIES_MAX_RESULTS })).toHaveLength(REMOTE_MEMORIES_MAX_RESULTS);
    expect(await get({ count: REMOTE_MEMORIES_MAX_RESULTS + 1 })).toHaveLength(REMOTE_MEMORIES_MAX_RESULTS);
    expect(await get({ count: 2 })).toEqual([`m${REMOTE_MEMORIES_MAX_RESULTS}`, `m${REMOTE_MEMORIES_MAX_RESULTS - 1}`]);
    expect(await get({ count: 2, offset: 1, entityId: "odd" })).toEqual([`m${REMOTE_MEMORIES_MAX_RESULTS - 3}`, `m${REMOTE_MEMORIES_MAX_RESULTS - 5}`]);
    expect(await get({ start: 1, end: 2 })).toEqual(["m2", "m1"]);
    expect(await get({ unique: true })).toEqual(["m3"]);
    expect(await get({ roomId: "elsewhere" })).toEqual([]);
    expect(await bindings.getMemories("other", { tableName: "facts" }, agent)).toEqual([]);
  });

  test("the table messages is the session's history (newest first) merged with the plugin's own", async () => {
    const { bindings, sessions } = host();
    sessions.ensure("s1", "cli");
    sessions.append("s1", [
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi there" },
    ]);
    const got = await bindings.getMemories("p", { tableName: "messages", roomId: "s1" }, agent);
    expect(got.map((m) => [m.content.text, m.entityId, m.id])).toEqual([
      ["hi there", agent.id, "s1#2"],
      ["hello", "user@s1", "s1#1"],
    ]);
    expect(await bindings.getMemories("p", { tableName: "messages", roomId: "nope" }, agent)).toEqual([]);
  });

  test("searchMemories: text search of the plugin's memories of the table; neither query nor embedding is BAD_REQUEST", async () => {
    const { bindings } = host();
    const id = await bindings.createMemory("p", { roomId: "r", content: { text: "purple umbrella by the door" } }, "facts");
    await bindings.createMemory("p", { roomId: "r", content: { text: "purple umbrella, other table" } }, "notes");
    await bindings.createMemory("q", { roomId: "r", content: { text: "purple umbrella of another plugin" } }, "facts");
    const found = await bindings.searchMemories("p", { tableName: "facts", query: "umbrella" });
    expect(found.map((m) => m.id)).toEqual([id]);
    expect(typeof found[0]!.similarity).toBe("number");
    const neither = await bindings.searchMemories("p", { tableName: "facts" }).catch((e) => e);
    expect(isPrxError(neither, "BAD_REQUEST")).toBe(true);
    const bare = host(false).bindings;
    expect(isPrxError(await bare.searchMemories("p", { tableName: "facts", query: "x" }).catch((e) => e), "PLUGIN_UNSUPPORTED")).toBe(true);
  });

  test("searchMemories with an embedding: the plugin's memories of the table by cosine similarity, at least match_threshold", async () => {
    const { bindings } = host();
    const near = await bindings.createMemory("p", { roomId: "r", embedding: [1, 0.1, 0], content: { text: "near" } }, "knowledge");
    const far = await bindings.createMemory("p", { roomId: "r", embedding: [0, 0, 1], content: { text: "far" } }, "knowledge");
    const middle = await bindings.createMemory("p", { roomId: "s", embedding: [1, 1, 0], content: { text: "middle" } }, "knowledge");
    await bindings.createMemory("p", { roomId: "r", content: { text: "no embedding" } }, "knowledge");
    await bindings.createMemory("p", { roomId: "r", embedding: [1, 0], content: { text: "other length" } }, "knowledge");
    await bindings.createMemory("p", { roomId: "r", embedding: [1, 0, 0], content: { text: "other table" } }, "facts");
    await bindings.createMemory("q", { roomId: "r", embedding: [1, 0, 0], content: { text: "other plugin" } }, "knowledge");
    const query = { tableName: "knowledge", embedding: [1, 0, 0] };
    const all = await bindings.searchMemories("p", query);
    expect(all.map((m) => m.id)).toEqual([near, middle, far]);
    expect(all[0]!.similarity).toBeCloseTo(1 / Math.sqrt(1.01), 6);
    expect(all[2]!.similarity).toBe(0);
    expect((await bindings.searchMemories("p", { ...query, match_threshold: 0.5 })).map((m) => m.id)).toEqual([near, middle]);
    expect((await bindings.searchMemories("p", { ...query, roomId: "s" })).map((m) => m.id)).toEqual([middle]);
    expect((await bindings.searchMemories("p", { ...query, count: 1 })).map((m) => m.id)).toEqual([near]);
    // no memory backend is needed: the vectors are the plugin's own
    expect(await host(false).bindings.searchMemories("p", query)).toEqual([]);
  });
});

describe("rooms, entities, relationships", () => {
  test(`getRoomsByIds accepts ${REMOTE_ROOMS_MAX_IDS} ids; one more is refused at the boundary`, () => {
    const ids = (n: number) => ({ roomIds: Array.from({ length: n }, (_, i) => `r${i}`) });
    expect(HostRpcArgSchemas.getRoomsByIds.safeParse(ids(REMOTE_ROOMS_MAX_IDS)).success).toBe(true);
    expect(HostRpcArgSchemas.getRoomsByIds.safeParse(ids(REMOTE_ROOMS_MAX_IDS + 1)).success).toBe(false);
  });

  test(`the agent's relationships are its ${REMOTE_RELATIONSHIPS_MAX} most recent sessions; a user's, its session`, async () => {
    const { bindings, sessions } = host();
    for (let i = 0; i < REMOTE_RELATIONSHIPS_MAX; i++) sessions.ensure(`s${i}`, "gateway");
    expect(await bindings.getRelationships({ entityId: agent.id }, agent)).toHaveLength(REMOTE_RELATIONSHIPS_MAX);
    sessions.ensure("one-more", "cli");
    expect(await bindings.getRelationships({ entityId: agent.id }, agent)).toHaveLength(REMOTE_RELATIONSHIPS_MAX);
    expect(await bindings.getRelationships({ entityId: "user@s1" }, agent)).toEqual([
      expect.objectContaining({ sourceEntityId: "user@s1", targetEntityId: agent.id, tags: ["session"] }),
    ]);
    expect(await bindings.getRelationships({ entityId: "user@s1", tags: ["friend"] }, agent)).toEqual([]);
    expect(await bindings.getRelationships({ entityId: "user@missing" }, agent)).toEqual([]);
    expect(await bindings.getRoom("s1", agent)).toMatchObject({ id: "s1", source: "gateway", type: "API", agentId: agent.id });
    expect(await bindings.getEntityById("user@missing", agent)).toBeNull();
    expect(await bindings.getEntityById("someone", agent)).toBeNull();
  });
});

describe("composeState and events", () => {
  const p = (name: string, extra: Partial<ProviderDescriptor> = {}): ProviderDescriptor => ({
    name,
    get: { rpc: true, id: `provider:${name}` },
    ...extra,
  });
  const providers = [p("LATE", { position: 5 }), p("DYN", { dynamic: true }), p("PRIV", { private: true }), p("EARLY", { position: -1 }), p("PLAIN")];

  test("providers: non-private non-dynamic plus the named ones by position; onlyInclude keeps exactly the named", () => {
    const names = (list: string[] | null, only: boolean) => selectProviders(providers, list, only).map((x) => x.name);
    expect(names(null, false)).toEqual(["EARLY", "PLAIN", "LATE"]);
    expect(names(["DYN", "PRIV"], false)).toEqual(["EARLY", "DYN", "PRIV", "PLAIN", "LATE"]);
    expect(names(["PRIV", "LATE"], true)).toEqual(["PRIV", "LATE"]);
    expect(names(null, true)).toEqual(["EARLY", "PLAIN", "LATE"]);
  });

  test("an event another plugin emitted reaches handlers with its params at the top level and as payload", () => {
    expect(eventParams({ plugin: "a", name: "E", payload: { noteId: "n", name: "inner" } })).toEqual({
      plugin: "a",
      name: "inner",
      payload: { noteId: "n", name: "inner" },
      noteId: "n",
    });
    expect(eventParams({ plugin: "a", name: "E", payload: [1] })).toEqual({ plugin: "a", name: "E", payload: [1] });
    expect(eventParams({ session_id: "s", channel: "cli" })).toEqual({ session_id: "s", channel: "cli" });
  });
});
