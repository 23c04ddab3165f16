import { afterEach, describe, expect, test } from "bun:test";
import { startFakeMatrix, type FakeMatrix } from "../fakes/matrix-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let mx: FakeMatrix;
let h: ChannelHarness;

function start(policy = 'dm_policy = "open"') {
  mx = startFakeMatrix();
  h = channelHarness(`[channels.matrix]\ntoken_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 1\nallow = ["@owner:fake.local"]\n${policy}\n`);
  return h.start("matrix", { MX_TOKEN: mx.token });
}

afterEach(async () => {
  await h.close();
  await mx.stop();
});

describe("matrix channel", () => {
  test("history before the first sync is not answered; a new DM is, as a reply with typing shown", async () => {
    mx = startFakeMatrix();
    mx.message({ room: "!old:fake.local", sender: "@owner:fake.local", body: "old history" });
    h = channelHarness(`[channels.matrix]\ntoken_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    await h.start("matrix", { MX_TOKEN: mx.token });
    await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token");
    const id = mx.message({ room: "!dm:fake.local", sender: "@owner:fake.local", body: "hi matrix" });
    const [sent] = await mx.waitForSent(1);
    expect(sent!.room).toBe("!dm:fake.local");
    expect(sent!.content.body).toBe("echo: hi matrix");
    expect(sent!.content["m.relates_to"]).toEqual({ "m.in_reply_to": { event_id: id } });
    expect(mx.typing).toContain("!dm:fake.local");
    expect(mx.sent).toHaveLength(1);
  });

  test("the since token is persisted: a restarted channel continues from it and answers nothing twice", async () => {
    const first = await start();
    await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token");
    mx.message({ room: "!dm:fake.local", sender: "@owner:fake.local", body: "one" });
    await mx.waitForSent(1);
    await first.stop();
    h.running.length = 0;
    await h.start("matrix", { MX_TOKEN: mx.token });
    mx.message({ room: "!dm:fake.local", sender: "@owner:fake.local", body: "two" });
    await mx.waitForSent(2);
    await Bun.sleep(300);
    expect(mx.sent.map((s) => s.content.body)).toEqual(["echo: one", "echo: two"]);
  });

  test("invites from allowed senders are joined, others are not (allowlist policy)", async () => {
    await start('dm_policy = "allowlist"');
    mx.invite("!welcome:fake.local", "@owner:fake.local");
    mx.invite("!spam:fake.local", "@stranger:fake.local");
    await waitFor(() => mx.joins.length >= 1, "a join");
    await Bun.sleep(300);
    expect(mx.joins).toEqual(["!welcome:fake.local"]);
  });

  test("threads are answered in the thread; group rooms need a mention; notices (bots) are ignored; 429 is retried", async () => {
    const running = await start();
    await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token");
    mx.limit("send", 200);
    mx.message({ room: "!group:fake.local", sender: "@a:fake.local", body: "chatter", members: 5 });
    mx.message({ room: "!group:fake.local", sender: "@bot:fake.local", body: "beep", members: 5, msgtype: "m.notice", mention: true });
    mx.message({ room: "!group:fake.local", sender: "@a:fake.local", body: "in a thread", members: 5, threadRoot: "$root", mention: true });
    const [sent] = await mx.waitForSent(1);
    await running.runner.idle();
    expect(mx.sent).toHaveLength(1);
    expect(sent!.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: "$root" });
  });
});
