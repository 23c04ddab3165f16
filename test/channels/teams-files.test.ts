/**
 * Files a Teams reply links, against the fake Bot Framework answering as Microsoft documents it
 * (test/fakes/teams-server.ts): an image inline as a data URI in any chat; another file by a FileConsentCard in a
 * personal chat, uploaded when the user accepts it and shown with a FileInfoCard; in a group chat the file stays a
 * link and a notice says why.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { channelDeliverer } from "../../src/channels/deliver.ts";
import { TEAMS_MAX_INLINE_IMAGE_BYTES } from "../../src/channels/limits.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { startFakeTeams, type FakeTeams, type TeamsActivitySent } from "../fakes/teams-server.ts";
import { PNG } from "../helpers/tiny-png.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let teams: FakeTeams;
let h: ChannelHarness;
let url = "";
const bridges: Array<{ stop(force?: boolean): unknown }> = [];

beforeEach(async () => {
  teams = await startFakeTeams();
  h = channelHarness(
    `[channels.ms]\nkind = "teams"\napp_id = "${teams.appId}"\nsecret_env = "TEAMS_PW"\nopenid_url = "${teams.url}/v1/.well-known/openidconfiguration"\n` +
      `token_url = "${teams.url}/botframework.com/oauth2/v2.0/token"\ndm_policy = "open"\n`,
  );
  writeFileSync(join(h.dir, "chart.png"), PNG);
  writeFileSync(join(h.dir, "notes.txt"), "some notes\n");
  url = webhookBridge(await h.start("ms", { TEAMS_PW: teams.password }), bridges);
});
afterEach(async () => {
  for (const b of bridges.splice(0)) b.stop(true);
  await h.close();
  await teams.stop();
});

const messages = () => teams.sent.filter((s) => s.type === "message");
const withCard = (contentType: string) => messages().find((s) => s.attachments?.some((a) => a.contentType === contentType));
const CONSENT = "application/vnd.microsoft.teams.card.file.consent";
const INFO = "application/vnd.microsoft.teams.card.file.info";

/** A personal chat's message whose answer links chart.png and notes.txt; resolves once the consent card is sent. */
async function askInPersonalChat(): Promise<{ id: string; card: TeamsActivitySent }> {
  h.provider.enqueue({ type: "text", text: "Done: ![chart](chart.png), [notes](notes.txt)" });
  const activity = teams.activity({ from: "29:p1", text: "chart please" });
  expect((await teams.deliver(url, activity)).status).toBe(200);
  await waitFor(() => withCard(CONSENT), "the consent card");
  return { id: activity.id as string, card: withCard(CONSENT)! };
}

test("personal chat: the text, the image inline as a data URI, then a FileConsentCard for the other file", async () => {
  const { id } = await askInPersonalChat();
  const [text, image, consent] = messages();
  expect(text).toMatchObject({ conversation: "a:129p1", replyTo: id, text: "Done: ![chart](chart.png), [notes](notes.txt)" });
  expect(image).toMatchObject({ conversation: "a:129p1", replyTo: id });
  expect(image!.attachments).toEqual([{ contentType: "image/png", contentUrl: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`, name: "chart.png" }]);
  const card = consent!.attachments![0]!;
  expect(card).toMatchObject({ contentType: CONSENT, name: "notes.txt", content: { description: "notes.txt", sizeInBytes: 11 } });
  expect(card.content!.acceptContext).toEqual(card.content!.declineContext);
  expect(teams.uploads).toEqual([]);
});

test("an accepted file is PUT whole to the upload URL, then shown with a FileInfoCard naming what Teams gave", async () => {
  const { card } = await askInPersonalChat();
  const invoke = teams.consent(card.attachments![0]!, "accept", card.conversation, card.id);
  expect((await teams.deliver(url, invoke)).status).toBe(200);
  await waitFor(() => withCard(INFO), "the file info card");
  expect(teams.uploads.map((u) => ({ name: u.name, range: u.contentRange, type: u.contentType, text: new TextDecoder().decode(u.bytes) }))).toEqual([
    { name: "notes.txt", range: "bytes 0-10/11", type: "text/plain", text: "some notes\n" },
  ]);
  const info = (invoke.value as { uploadInfo: Record<string, string> }).uploadInfo;
  expect(withCard(INFO)!.attachments).toEqual([
    { contentType: INFO, contentUrl: info.contentUrl!, name: "notes.txt", content: { uniqueId: info.uniqueId!, fileType: "txt" } },
  ]);
  expect(withCard(INFO)!.conversation).toBe("a:129p1");
});

test("a file gone from the workspace when the user accepts it is not uploaded; the chat is told why", async () => {
  const { card } = await askInPersonalChat();
  rmSync(join(h.dir, "notes.txt"));
  expect((await teams.deliver(url, teams.consent(card.attachments![0]!, "accept", card.conversation, card.id))).status).toBe(200);
  await waitFor(() => messages().length === 4, "the notice");
  expect(messages()[3]).toMatchObject({ conversation: "a:129p1", text: "(notes.txt could not be sent: notes.txt is no longer a file of the workspace)" });
  expect(teams.uploads).toEqual([]);
});

test("message_send's consent card, sent by its own adapter, is honoured by the channel's process when the user accepts", async () => {
  const config = ChannelConfigSchema.parse({
    kind: "teams",
    app_id: teams.appId,
    secret_env: "TEAMS_PW",
    api_base_url: teams.url,
    token_url: `${teams.url}/botframework.com/oauth2/v2.0/token`,
  });
  const deliver = channelDeliverer({ ms: config }, { TEAMS_PW: teams.password });
  const sent = await deliver({ channel: "ms", chat: "a:1owner", thread: null }, "the notes: [notes](notes.txt)", new AbortController().signal, h.dir);
  expect(sent).toEqual({ parts: 1, files: 1, notes: [] });
  const card = withCard(CONSENT)!;
  expect(card).toMatchObject({ conversation: "a:1owner", replyTo: null, attachments: [{ contentType: CONSENT, name: "notes.txt" }] });
  expect((await teams.deliver(url, teams.consent(card.attachments![0]!, "accept", "a:1owner", card.id))).status).toBe(200);
  await waitFor(() => withCard(INFO), "the file info card");
  expect(teams.uploads.map((u) => u.name)).toEqual(["notes.txt"]);
});

test("a declined file is not uploaded and nothing more is said", async () => {
  const { card } = await askInPersonalChat();
  const before = messages().length;
  expect((await teams.deliver(url, teams.consent(card.attachments![0]!, "decline", card.conversation, card.id))).status).toBe(200);
  await Bun.sleep(200);
  expect(teams.uploads).toEqual([]);
  expect(messages()).toHaveLength(before);
});

test("a consent for a file the bot did not offer in that conversation is refused: another path, another chat", async () => {
  const { card } = await askInPersonalChat();
  const offered = card.attachments![0]!;
  const context = offered.content!.acceptContext as { file: string; mac: string };
  const otherFile = { ...offered, content: { ...offered.content, acceptContext: { ...context, file: "config.toml" } } };
  expect((await teams.deliver(url, teams.consent(otherFile, "accept", card.conversation, card.id))).status).toBe(400);
  expect((await teams.deliver(url, teams.consent(offered, "accept", "a:1someone-else", card.id))).status).toBe(400);
  await Bun.sleep(200);
  expect(teams.uploads).toEqual([]);
});

test("group chat: the image goes inline; the file stays a link and a notice says bots send files only in personal chats", async () => {
  h.provider.enqueue({ type: "text", text: "Done: ![chart](chart.png), [notes](notes.txt)" });
  await teams.deliver(url, teams.activity({ from: "29:g1", text: "chart", type: "groupChat", conversation: "19:group@thread.v2", mention: true }));
  await teams.waitForSent(3);
  const [text, image, notice] = messages();
  expect(text!.text).toBe("Done: ![chart](chart.png), [notes](notes.txt)");
  expect(image!.attachments![0]).toMatchObject({ contentType: "image/png", name: "chart.png" });
  expect(notice!.text).toBe("(notes.txt could not be sent: teams: a bot can send files only in personal chats; the link stays in the text)");
  expect(messages().every((m) => m.conversation === "19:group@thread.v2")).toBe(true);
  expect(teams.sent.some((s) => s.attachments?.some((a) => a.contentType === CONSENT))).toBe(false);
});

test(`an image of TEAMS_MAX_INLINE_IMAGE_BYTES (${TEAMS_MAX_INLINE_IMAGE_BYTES}) goes inline; one byte more is offered as a file`, async () => {
  writeFileSync(join(h.dir, "at.png"), new Uint8Array(TEAMS_MAX_INLINE_IMAGE_BYTES));
  writeFileSync(join(h.dir, "past.png"), new Uint8Array(TEAMS_MAX_INLINE_IMAGE_BYTES + 1));
  h.provider.enqueue({ type: "text", text: "![a](at.png) ![b](past.png)" });
  await teams.deliver(url, teams.activity({ from: "29:p2", text: "big ones" }));
  await waitFor(() => withCard(CONSENT), "the consent card");
  const [, inline, offered] = messages();
  expect(inline!.attachments![0]).toMatchObject({ contentType: "image/png", name: "at.png" });
  expect(inline!.attachments![0]!.contentUrl!.length).toBe("data:image/png;base64,".length + Math.ceil(TEAMS_MAX_INLINE_IMAGE_BYTES / 3) * 4);
  expect(offered!.attachments![0]).toMatchObject({ contentType: CONSENT, name: "past.png", content: { sizeInBytes: TEAMS_MAX_INLINE_IMAGE_BYTES + 1 } });
});
