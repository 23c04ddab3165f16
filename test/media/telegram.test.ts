import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "../channels/harness.ts";
import { ogg, png } from "./samples.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
const ENV = { TG_TOKEN: "123456:TEST-token" };
const TABLE = () => `[channels.telegram]\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`;

beforeEach(() => {
  tg = startFakeTelegram(ENV.TG_TOKEN);
});
afterEach(async () => {
  await h.close();
  await tg.stop();
});

const from = { id: 42, is_bot: false, first_name: "Ada" };
const chat = { id: 42, type: "private", first_name: "Ada" };
const date = () => Math.floor(Date.now() / 1000);

describe("telegram media", () => {
  test("a photo reaches the model with its caption (getFile, then the file download); the session keeps it by hash", async () => {
    h = channelHarness(TABLE());
    await h.start("telegram", ENV);
    const small = png(90, 60, 300);
    const large = png(1280, 853, 4000);
    const smallId = tg.file(small, "photos/file_1.png");
    const largeId = tg.file(large, "photos/file_2.png");
    tg.update({
      message: {
        message_id: 5,
        from,
        chat,
        date: date(),
        caption: "what bird is this?",
        photo: [
          { file_id: smallId, file_unique_id: "s", width: 90, height: 60, file_size: small.length },
          { file_id: largeId, file_unique_id: "l", width: 1280, height: 853, file_size: large.length },
        ],
      },
    });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toBe("echo: what bird is this?");
    expect(tg.calls.find((c) => c.method === "getFile")!.body).toEqual({ file_id: largeId });
    expect(tg.calls.find((c) => c.method === "file download")!.body).toEqual({ path: "photos/file_2.png" });
    const user = h.provider.chatRequests().at(-1)!.body.messages.at(-1);
    expect(user.content).toEqual([
      { type: "text", text: "what bird is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(large).toString("base64")}` } },
    ]);
    const storage = openSqliteStorage(`${h.dir}/data/prx.db`);
    try {
      const [message] = storage.sessions.allMessages("telegram:42");
      expect(message!.media).toEqual([{ kind: "image", mime: "image/png", sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: large.length, width: 1280, height: 853 }]);
      expect(storage.media.get(message!.media![0]!.sha256!)!.data.length).toBe(large.length);
    } finally {
      await storage.close();
    }
  });

  test("a voice note is transcribed by the transcription model and answered", async () => {
    h = channelHarness(TABLE(), 'transcription_model = "whisper-1"');
    await h.start("telegram", ENV);
    const clip = ogg(2048);
    const voice = tg.file(clip, "voice/file_3.oga");
    tg.update({ message: { message_id: 6, from, chat, date: date(), voice: { file_id: voice, file_unique_id: "v", duration: 3, mime_type: "audio/ogg", file_size: clip.length } } });
    const [reply] = await tg.waitForSent(1);
    const heard = `[voice note transcript]\nfake transcript of ${clip.length} bytes of audio.ogg`;
    expect(reply!.visible).toBe(`echo: ${heard}`);
    expect(h.provider.requests.find((r) => r.path === "/v1/audio/transcriptions")!.body).toMatchObject({ model: "whisper-1", file: { name: "audio.ogg", bytes: clip.length } });
  });

  test("without a transcription model the model is told a voice note arrived and could not be heard", async () => {
    h = channelHarness(TABLE());
    await h.start("telegram", ENV);
    const voice = tg.file(ogg(), "voice/file_4.oga");
    tg.update({ message: { message_id: 7, from, chat, date: date(), voice: { file_id: voice, file_unique_id: "w", duration: 1 } } });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toBe("echo: [a voice note arrived, but it could not be heard: no transcription model is configured]");
  });

  test("a file that is not what it claims becomes a note in the turn, not a silent drop", async () => {
    h = channelHarness(TABLE());
    await h.start("telegram", ENV);
    const bogus = tg.file(new TextEncoder().encode("<html>not an image</html>"), "documents/file_5.png");
    tg.update({ message: { message_id: 8, from, chat, date: date(), caption: "look", document: { file_id: bogus, file_unique_id: "d", mime_type: "image/png", file_name: "x.png" } } });
    const [reply] = await tg.waitForSent(1);
    expect(reply!.visible).toStartWith("echo: look\n[an image arrived, but it could not be received: the image is not a PNG, JPEG, GIF or WebP image");
  });
});
