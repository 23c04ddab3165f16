/** The IRC channel against a real ngIRCd (Debian's `ngircd`; .ci/run installs it). */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { IRC_MAX_TEXT_BYTES, IRC_SEND_BURST } from "../../src/channels/limits.ts";
import { ircPerson, NGIRCD, startNgircd, type IrcPerson, type Ngircd } from "../helpers/ngircd.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

// a test that needs ngircd never skips under CI, which installs it
const needsServer = test.skipIf(!NGIRCD && !process.env.CI);

let server: Ngircd;
let h: ChannelHarness;
const people: IrcPerson[] = [];
const table = (extra = "") => `[channels.irc]\nkind = "irc"\nserver = "127.0.0.1:${server.port}"\ntls = false\nnick = "prxbot"\njoin = ["#prx"]\n${extra}\n`;

beforeEach(async () => {
  if (NGIRCD || process.env.CI) server = await startNgircd();
});
afterEach(async () => {
  for (const p of people.splice(0)) p.quit();
  await h?.close();
  await server?.close();
});

async function person(nick: string): Promise<IrcPerson> {
  const p = await ircPerson(server.port, nick);
  people.push(p);
  return p;
}

needsServer("an unknown nick's DM gets a pairing code; once approved the next DM is answered", async () => {
  h = channelHarness(table());
  const running = await h.start("irc", {});
  const ada = await person("ada");
  ada.say("prxbot", "hello");
  await ada.waitFor(() => ada.heard("prxbot").some((l) => l.includes("Pairing code:")), "the pairing code");
  const code = /Pairing code: (\S+)/.exec(ada.heard("prxbot").join("\n"))![1]!;
  expect(h.provider.chatRequests()).toHaveLength(0);
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "ada" });
  ada.say("prxbot", "now?");
  await ada.waitFor(() => ada.heard("prxbot").includes("echo: now?"), "the reply");
});

needsServer("in a channel only a message addressed to the bot is answered, in the channel", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("irc", {});
  const bob = await person("bob");
  await bob.join("#prx");
  bob.say("#prx", "just chatting");
  bob.say("#prx", "prxbot: what is up");
  await bob.waitFor(() => bob.heard("prxbot", "#prx").length > 0, "the reply in #prx");
  await running.runner.idle();
  expect(bob.heard("prxbot", "#prx")).toEqual(["echo: what is up"]);
});

needsServer("a long multi-line reply goes out as lines within the byte limit", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  await h.start("irc", {});
  const cy = await person("cy");
  const long = `${"é".repeat(300)}\n\nsecond line`;
  h.provider.enqueue({ type: "text", text: long });
  cy.say("prxbot", "long please");
  await cy.waitFor(() => cy.heard("prxbot").includes("second line"), "the last line");
  const heard = cy.heard("prxbot");
  expect(heard.join("")).toBe(`${"é".repeat(300)}second line`);
  expect(heard.every((l) => Buffer.byteLength(l) <= IRC_MAX_TEXT_BYTES)).toBe(true);
  expect(heard.length).toBe(3);
});

needsServer("a reply longer than the flood burst arrives whole and in order, and the server keeps the bot connected", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("irc", {});
  const eve = await person("eve");
  const lines = Array.from({ length: IRC_SEND_BURST + 3 }, (_, i) => `line ${i + 1}`);
  h.provider.enqueue({ type: "text", text: lines.join("\n") });
  eve.say("prxbot", "many lines please");
  await eve.waitFor(() => eve.heard("prxbot").length >= lines.length, "every line");
  expect(eve.heard("prxbot")).toEqual(lines);
  eve.say("prxbot", "still there?");
  await eve.waitFor(() => eve.heard("prxbot").includes("echo: still there?"), "the next reply");
  expect(running.channel.health().ok).toBe(true);
});

needsServer("a server restart is survived: the channel reconnects with backoff and answers again", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("irc", {});
  await server.stop();
  await Bun.sleep(100);
  expect(running.channel.health().ok).toBe(false);
  await server.restart();
  const dee = await person("dee");
  await dee.waitFor(() => running.channel.health().ok, "the reconnect", 20_000);
  dee.say("prxbot", "back?");
  await dee.waitFor(() => dee.heard("prxbot").includes("echo: back?"), "the reply after the reconnect");
}, 30_000);
