import { afterEach, expect, test } from "bun:test";
import { startFakeMatrix, type FakeMatrix } from "../fakes/matrix-server.ts";
import { channelHarness, type ChannelHarness } from "../channels/harness.ts";
import { waitFor } from "../helpers/wait.ts";
import { jpeg } from "./samples.ts";

let mx: FakeMatrix;
let h: ChannelHarness;

afterEach(async () => {
  await h.close();
  await mx.stop();
});

test("a Matrix m.image reaches the model with its caption, fetched through the authenticated media download", async () => {
  mx = startFakeMatrix();
  h = channelHarness(`[channels.matrix]\ntoken_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
  await h.start("matrix", { MX_TOKEN: mx.token });
  await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token");
  const image = jpeg(400, 300, 800);
  const url = mx.upload(image);
  mx.message({ room: "!dm:fake.local", sender: "@owner:fake.local", msgtype: "m.image", body: "is this a heron?", content: { filename: "bird.jpg", url, info: { mimetype: "image/jpeg", size: image.length, w: 400, h: 300 } } });
  const [sent] = await mx.waitForSent(1, 20_000);
  expect(sent!.content.body).toBe("echo: is this a heron?");
  expect(h.provider.chatRequests().at(-1)!.body.messages.at(-1).content).toEqual([
    { type: "text", text: "is this a heron?" },
    { type: "image_url", image_url: { url: `data:image/jpeg;base64,${Buffer.from(image).toString("base64")}` } },
  ]);
}, 30_000);
