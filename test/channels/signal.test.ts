/** The Signal channel against the fake signal-cli HTTP daemon (test/fakes/signal-server.ts). */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { startFakeSignal, type FakeSignal } from "../fakes/signal-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let signal: FakeSignal;
let h: ChannelHarness;
const table = (extra = "") => `[channels.sig]\nkind = "signal"\napi_base_url = "${signal.url}"\naccount = "${signal.account}"\n${extra}\n`;

/** Start the channel and wait for its event stream: a client that was never connected is sent no earlier events. */
async function start() {
  const running = await h.start("sig", {});
  const before = signal.connections.length;
  await waitFor(() => signal.connections.length > before, "the event stream");
  return running;
}

beforeEach(() => {
  signal = startFakeSignal();
});
afterEach(async () => {
  await h.close();
  await signal.stop();
});

test("an unknown sender gets a pairing code; once approved the next message is answered with typing shown", async () => {
  h = channelHarness(table());
  const running = await start();
  signal.message({ source: "+15551110001", name: "Cy", text: "hello" });
  const [notice] = await signal.waitForSends(1);
  expect(notice).toMatchObject({ recipient: ["+15551110001"] });
  const code = /Pairing code: (\S+)/.exec(notice!.message)![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "+15551110001", display: "Cy" });
  signal.message({ source: "+15551110001", text: "now?" });
  const [, reply] = await signal.waitForSends(2);
  expect(reply).toMatchObject({ recipient: ["+15551110001"], message: "echo: now?" });
  expect(signal.typing).toBeGreaterThan(0);
});

test("in a group only a mention is answered, in the group", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await start();
  signal.message({ source: "+15551110002", text: "chatter", groupId: "R3JvdXA=" });
  signal.message({ source: "+15551110002", text: "\uFFFC what time is it", groupId: "R3JvdXA=", mentionMe: true });
  const [reply] = await signal.waitForSends(1);
  await running.runner.idle();
  expect(signal.sends).toHaveLength(1);
  expect(reply).toMatchObject({ groupId: "R3JvdXA=", message: "echo: \uFFFC what time is it" });
});

test("a dropped stream reconnects with Last-Event-ID; nothing is answered twice, also after a restart", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  let running = await start();
  signal.message({ source: "+15551110003", text: "one" });
  await signal.waitForSends(1);
  signal.drop();
  signal.message({ source: "+15551110003", text: "two" });
  await signal.waitForSends(2, 15_000);
  expect(signal.connections.length).toBeGreaterThanOrEqual(2);
  expect(signal.connections.at(-1)).toBe("1");
  await running.runner.idle();
  await running.stop();
  h.running.splice(0);
  running = await start();
  await waitFor(() => signal.connections.length >= 3, "the new process's stream");
  expect(signal.connections.at(-1)).toBe("2");
  await Bun.sleep(200);
  expect(signal.sends.map((s) => s.message)).toEqual(["echo: one", "echo: two"]);
}, 30_000);

test("an image attachment reaches the model through getAttachment", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  await start();
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const id = signal.attachment(png);
  signal.message({ source: "+15551110004", text: "look", attachments: [{ contentType: "image/png", filename: null, id, size: png.length }] });
  await signal.waitForSends(1);
  expect(JSON.stringify(h.provider.chatRequests()[0]!.body)).toContain("data:image/png;base64,");
});

test("the event stream outlives the request time limit: it is one connection until something ends it", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("sig", {}, { requestTimeoutMs: 200 });
  await waitFor(() => signal.connections.length > 0, "the event stream");
  await Bun.sleep(600);
  signal.message({ source: "+15551110005", text: "still there?" });
  await signal.waitForSends(1);
  expect(signal.connections).toHaveLength(1);
  expect(running.channel.health().ok).toBe(true);
});
