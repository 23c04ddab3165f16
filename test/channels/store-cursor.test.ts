/**
 * A channel's cursor is kept with the channel's next write, never in a write of its own: the message stored, the
 * liveness row. Meanwhile the process reads the cursor it set; a write that fails keeps the cursor for the next one.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { ChannelStore } from "../../src/channels/store.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { SqliteChannelStateStore } from "../../src/storage/index.ts";

function message(i: number): InboundMessage {
  return { id: `m${i}`, channel: "t", chatId: "c", chatKind: "dm", threadId: null, senderId: "u", senderDisplay: "u", senderIsBot: false, text: `hi ${i}`, replyTo: null, mentioned: false, timestamp: 0 };
}

const running = { pid: 1, state: "running", last_inbound: null, last_outbound: null, last_error: null, last_error_at: null };

test("the cursor set after a message is written with the next message, or with the next liveness row", async () => {
  const state = new SqliteChannelStateStore(new Database(":memory:"));
  const store = new ChannelStore(state, "t");
  expect(await store.getCursor()).toBeNull();
  expect(await store.admit(message(1))).toBe(true);
  await store.setCursor("2");
  expect(await store.getCursor()).toBe("2");
  expect(state.getCursor("t")).toBeNull();
  expect(await store.admit(message(2))).toBe(true);
  expect(state.getCursor("t")).toBe("2");
  await store.setCursor("3");
  // a redelivery stores nothing, but the cursor moves with it
  expect(await store.admit(message(2))).toBe(false);
  expect(state.getCursor("t")).toBe("3");
  await store.setCursor("4");
  await store.writeStatus(running);
  expect(state.getCursor("t")).toBe("4");
  // written: the next write carries no cursor
  await store.writeStatus({ ...running, state: "stopped" });
  expect(state.getCursor("t")).toBe("4");
  // a later process starts from the stored cursor
  expect(await new ChannelStore(state, "t").getCursor()).toBe("4");
});

test("a write that fails keeps the cursor for the next write", async () => {
  const db = new Database(":memory:");
  const state = new SqliteChannelStateStore(db);
  const store = new ChannelStore(state, "t");
  await store.setCursor("7");
  db.run("CREATE TRIGGER refuse BEFORE INSERT ON channel_inbox BEGIN SELECT RAISE(ABORT, 'refused'); END");
  await expect(store.admit(message(1))).rejects.toThrow("refused");
  expect(state.getCursor("t")).toBeNull();
  db.run("DROP TRIGGER refuse");
  expect(await store.admit(message(1))).toBe(true);
  expect(state.getCursor("t")).toBe("7");
});
