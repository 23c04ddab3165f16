/**
 * A channel process's time limits by their effect, in-process against the fakes: the stop grace (a turn that ends
 * within it is delivered before the process stops; one that does not is answered once by the next start) and the
 * webhook's synchronous wait (past it the caller gets 202, and the same id posted again gets the answer).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { CHANNEL_STOP_GRACE_MS, WEBHOOK_SYNC_WAIT_MS } from "../../src/channels/limits.ts";
import { signPrx } from "../../src/channels/signature.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let h: ChannelHarness;
let tg: FakeTelegram | null = null;
afterEach(async () => {
  await h.close();
  await tg?.stop();
  tg = null;
});

function telegram(): ChannelHarness {
  tg = startFakeTelegram();
  return channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
}

describe("stop grace", () => {
  test(`a turn that ends within the grace (${CHANNEL_STOP_GRACE_MS} ms) is delivered before the process stops`, async () => {
    h = telegram();
    const running = await h.start("telegram", { TG: tg!.token });
    h.provider.enqueue({ type: "text", text: "finished in time", delayMs: 300 });
    tg!.message({ chatId: 5, text: "question" });
    await waitFor(() => h.provider.chatRequests().length === 1, "the turn to reach the provider");
    await running.stop();
    expect(tg!.sent.map((s) => s.visible)).toEqual(["finished in time"]);
  });

  test("a turn still running when the grace ends (shorter here) is left for the next start, which answers it once", async () => {
    h = telegram();
    const first = await h.start("telegram", { TG: tg!.token }, { stopGraceMs: 50 });
    h.provider.enqueue({ type: "hang" });
    tg!.message({ chatId: 6, text: "long question" });
    await waitFor(() => h.provider.chatRequests().length === 1, "the turn to reach the provider");
    await first.stop();
    expect(tg!.sent).toHaveLength(0);
    h.running.length = 0;
    const second = await h.start("telegram", { TG: tg!.token });
    await tg!.waitForSent(1);
    await second.runner.idle();
    expect(tg!.sent.map((s) => s.visible)).toEqual(["echo: long question"]);
  });
});

describe("webhook synchronous wait", () => {
  test(`past the wait (${WEBHOOK_SYNC_WAIT_MS} ms; shorter here) the caller gets 202; the same id posted again gets the answer, from one turn`, async () => {
    h = channelHarness(`[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n`);
    const running = await h.start("hook", { HOOK_SECRET: "s" }, { webhookSyncWaitMs: 100 });
    h.provider.enqueue({ type: "text", text: "worth the wait", delayMs: 600 });
    const body = JSON.stringify({ id: "slow-1", sender_id: "crm", text: "take your time" });
    const post = () => running.channel.handleHttp!({ method: "POST", headers: signPrx("s", body, Date.now()), body });
    const first = await post();
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ id: "slow-1", accepted: true, note: expect.stringContaining("still being prepared") });
    await running.runner.idle();
    const again = await post();
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ id: "slow-1", reply: "worth the wait", parts: ["worth the wait"] });
    expect(h.provider.chatRequests()).toHaveLength(1);
  });
});
