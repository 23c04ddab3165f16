/**
 * Files a reply links, sent by the Telegram channel (fake Bot API): an image as sendPhoto, another file as
 * sendDocument, each threaded to the message after the text; paths outside the workspace and prx's own files stay text.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { PNG } from "../helpers/tiny-png.ts";
import { waitFor } from "../helpers/wait.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
const ENV = { TG_TOKEN: "123456:TEST-token" };

beforeEach(() => {
  tg = startFakeTelegram(ENV.TG_TOKEN);
  h = channelHarness(`[channels.telegram]\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
});
afterEach(async () => {
  await h.close();
  await tg.stop();
});

test("an image and a file the reply links go as sendPhoto and sendDocument after the text, threaded to the message", async () => {
  mkdirSync(join(h.dir, "out"));
  writeFileSync(join(h.dir, "out", "chart.png"), PNG);
  writeFileSync(join(h.dir, "report.csv"), "a,b\n1,2\n");
  h.provider.enqueue({ type: "text", text: "Here it is: ![the chart](out/chart.png) and [the data](report.csv)." });
  await h.start("telegram", ENV);
  tg.message({ chatId: 42, text: "chart please", messageId: 7 });
  await waitFor(() => tg.uploads.length === 2, "both files");
  expect(tg.sent).toHaveLength(1);
  expect(tg.uploads.map((u) => ({ method: u.method, chat: u.chat_id, name: u.name, mime: u.mime, reply: u.reply_to }))).toEqual([
    { method: "sendPhoto", chat: "42", name: "chart.png", mime: "image/png", reply: 7 },
    { method: "sendDocument", chat: "42", name: "report.csv", mime: "text/csv", reply: 7 },
  ]);
  expect(tg.uploads[0]!.bytes).toEqual(PNG);
  expect(new TextDecoder().decode(tg.uploads[1]!.bytes)).toBe("a,b\n1,2\n");
  expect(tg.uploads[0]!.message_id).toBeGreaterThan(tg.sent[0]!.message_id);
});

test("links outside the workspace, to prx's own files and to URLs send nothing; prx's own file is named in a notice", async () => {
  writeFileSync(join(h.dir, "..", "outside.txt"), "secret");
  h.provider.enqueue({ type: "text", text: "[a](../outside.txt) [b](config.toml) [c](https://example.com/x.png) [d](missing.png)" });
  await h.start("telegram", ENV);
  tg.message({ chatId: 42, text: "files?", messageId: 8 });
  await tg.waitForSent(2);
  await Bun.sleep(200);
  expect(tg.uploads).toEqual([]);
  expect(tg.sent[1]!.visible).toBe("(config.toml is prx's own and is not sent)");
});

test("an image Telegram refuses as a photo is sent again as a document", async () => {
  writeFileSync(join(h.dir, "wide.png"), PNG);
  tg.fail("sendPhoto", { status: 400, description: "Bad Request: PHOTO_INVALID_DIMENSIONS" });
  h.provider.enqueue({ type: "text", text: "![wide](wide.png)" });
  await h.start("telegram", ENV);
  tg.message({ chatId: 42, text: "wide one", messageId: 9 });
  await waitFor(() => tg.uploads.length === 1, "the document");
  expect(tg.uploads[0]).toMatchObject({ method: "sendDocument", name: "wide.png" });
});
