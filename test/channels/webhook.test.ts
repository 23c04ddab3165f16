import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SqliteChannelStateStore } from "../../src/storage/sqlite/channels.ts";
import { CHANNEL_MAX_HTTP_BODY_BYTES } from "../../src/channels/limits.ts";
import { USER_MESSAGE_MAX_CHARS } from "../../src/agent/limits.ts";
import type { RunningChannel } from "../../src/channels/process.ts";
import { signPrx, verifyPrxSignature } from "../../src/channels/signature.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

const SECRET = "webhook-secret";
const ENV = { HOOK_SECRET: SECRET };
let h: ChannelHarness;
afterEach(() => h.close());

function post(running: RunningChannel, body: string, headers = signPrx(SECRET, body, Date.now())) {
  return running.channel.handleHttp!({ method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

function table(extra = ""): string {
  return `[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n${extra}\n`;
}

describe("webhook channel", () => {
  test("a signed POST is answered in the response; the same id again gets the same answer without a second turn", async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const body = JSON.stringify({ id: "m1", sender_id: "crm", text: "status?" });
    const first = await post(running, body);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ id: "m1", reply: "echo: status?", parts: ["echo: status?"] });
    const again = await post(running, body);
    expect(JSON.parse(again.body).reply).toBe("echo: status?");
    expect(h.provider.chatRequests()).toHaveLength(1);
  });

  test("the response carries the reply before the delivery is recorded; it is recorded right after", async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const body = JSON.stringify({ id: "m2", sender_id: "crm", text: "order 7?" });
    const db = new Database(join(h.dir, "data", "prx.db"), { readonly: true });
    try {
      const store = new SqliteChannelStateStore(db);
      const answer = await post(running, body);
      expect(JSON.parse(answer.body).reply).toBe("echo: order 7?");
      // read as the answer is handed back: stored as replied, its delivery not written yet
      expect(store.entry("hook", "m2")).toMatchObject({ state: "replied", partsSent: 0 });
      await running.runner.idle();
      expect(store.entry("hook", "m2")).toMatchObject({ state: "done", partsSent: 1 });
    } finally {
      db.close();
    }
  });

  test("a bad or missing signature is 401 and nothing runs", async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const body = JSON.stringify({ id: "m2", sender_id: "crm", text: "hi" });
    expect((await post(running, body, signPrx("wrong", body, Date.now()))).status).toBe(401);
    expect((await post(running, body, {})).status).toBe(401);
    expect((await post(running, body, signPrx(SECRET, body, Date.now() - 301_000))).status).toBe(401);
    expect(h.provider.chatRequests()).toHaveLength(0);
  });

  test("malformed payloads are 400 naming the problem", async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const notJson = await post(running, "{nope");
    expect(notJson.status).toBe(400);
    const missing = await post(running, JSON.stringify({ id: "x", text: "no sender" }));
    expect(missing.status).toBe(400);
    expect(missing.body).toContain("sender_id");
    expect(h.provider.chatRequests()).toHaveLength(0);
  });

  test(`a body of ${CHANNEL_MAX_HTTP_BODY_BYTES} bytes is read; one byte more is 413`, async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const make = (size: number) => {
      const shell = JSON.stringify({ id: "big", sender_id: "crm", text: "" });
      return JSON.stringify({ id: "big", sender_id: "crm", text: "x".repeat(size - shell.length) });
    };
    const at = make(CHANNEL_MAX_HTTP_BODY_BYTES);
    expect(at.length).toBe(CHANNEL_MAX_HTTP_BODY_BYTES);
    expect((await post(running, at)).status).not.toBe(413);
    expect((await post(running, make(CHANNEL_MAX_HTTP_BODY_BYTES + 1))).status).toBe(413);
  });

  test(`a message of ${USER_MESSAGE_MAX_CHARS} characters runs a turn; one more is refused with a notice`, async () => {
    h = channelHarness(table());
    const running = await h.start("hook", ENV);
    const at = await post(running, JSON.stringify({ id: "at", sender_id: "crm", text: "y".repeat(USER_MESSAGE_MAX_CHARS) }));
    expect(JSON.parse(at.body).reply).toStartWith("echo: yyy");
    const past = await post(running, JSON.stringify({ id: "past", sender_id: "crm", text: "y".repeat(USER_MESSAGE_MAX_CHARS + 1) }));
    expect(JSON.parse(past.body).reply).toContain("too long");
    expect(h.provider.chatRequests()).toHaveLength(1);
  });

  test("with callback_url the request is accepted at once and the reply is POSTed there, signed the same way", async () => {
    const received: Array<{ headers: Headers; body: string }> = [];
    const callback = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        received.push({ headers: request.headers, body: await request.text() });
        return new Response("ok");
      },
    });
    try {
      h = channelHarness(table(`callback_url = "http://127.0.0.1:${callback.port}/replies"`));
      const running = await h.start("hook", ENV);
      const answer = await post(running, JSON.stringify({ id: "cb1", sender_id: "crm", chat_id: "ticket-9", text: "ping" }));
      expect(answer.status).toBe(202);
      await waitFor(() => received.length === 1, "the callback");
      const { headers, body } = received[0]!;
      expect(verifyPrxSignature(SECRET, headers.get("x-prx-timestamp") ?? undefined, headers.get("x-prx-signature") ?? undefined, body, Date.now()).ok).toBe(true);
      expect(JSON.parse(body)).toEqual({ reply_to: "cb1", chat_id: "ticket-9", thread_id: null, text: "echo: ping" });
    } finally {
      callback.stop(true);
    }
  });
});
