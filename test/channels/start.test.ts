/**
 * A channel process connects to its platform first and opens its agent host after (process.ts): what arrives while
 * the host opens waits and is answered in order once it is open; a host that fails to open ends the process with
 * its error; a stop while it opens closes what it opened. The host's open is held here until the test releases it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ChannelParticipant, ParticipantOptions } from "../../src/channels/participant.ts";
import { connectChannelProcess, type ChannelProcess, type ChannelProcessLimits } from "../../src/channels/process.ts";
import { signPrx } from "../../src/channels/signature.ts";
import { isPrxError, PrxError } from "../../src/core/errors.ts";
import { handledByLastText } from "../fakes/common.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let h: ChannelHarness;
let tg: FakeTelegram | undefined;
let processes: ChannelProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) await p.stop();
  await h.close();
  await tg?.stop();
  tg = undefined;
});

/** The real open, held until release() (or failed with fail()); how it ended is kept for the test to look at. */
function heldOpen() {
  let release!: () => void;
  let fail!: (error: unknown) => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const outcomes: Array<ChannelParticipant | Error> = [];
  let started = false;
  const open = async (options: ParticipantOptions): Promise<ChannelParticipant> => {
    started = true;
    await gate;
    try {
      const participant = await (await import("../../src/channels/participant.ts")).openParticipant(options);
      outcomes.push(participant);
      return participant;
    } catch (error) {
      outcomes.push(error as Error);
      throw error;
    }
  };
  return { open, release, fail, outcomes, started: () => started };
}

async function connect(name: string, env: Record<string, string>, open: (options: ParticipantOptions) => Promise<ChannelParticipant>, limits?: Partial<ChannelProcessLimits>) {
  const connected: string[] = [];
  const p = await connectChannelProcess({
    name,
    workspace: h.dir,
    env: { ...process.env, ...env },
    limits,
    onConnected: (health) => connected.push(health.detail),
    openParticipant: open,
  });
  processes.push(p);
  return { p, connected };
}

describe("channel process start", () => {
  test("connected before the host is open; messages sent meanwhile are answered once it opens, in order", async () => {
    tg = startFakeTelegram();
    h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    const held = heldOpen();
    const { p, connected } = await connect("telegram", { TG: tg.token }, held.open);
    expect(connected).toEqual(["@prx_test_bot polling"]);
    expect(held.started()).toBe(true);
    tg.message({ chatId: 1, text: "first" });
    tg.message({ chatId: 1, text: "second" });
    await Bun.sleep(50);
    // nothing is read from the platform before the host (and its stored cursor) is open: nothing can be lost
    expect(tg.sent).toHaveLength(0);
    expect(tg.pending()).toBe(2);
    held.release();
    const running = await p.opened();
    const sent = await tg.waitForSent(2);
    expect(sent.map((s) => s.visible)).toEqual(["echo: first", "echo: second"]);
    await running.runner.idle();
    expect(running.runner.stats.answered).toBe(2);
  });

  test("requests that arrive before the host is open wait, then each is answered, in the order they came", async () => {
    h = channelHarness(`[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n`);
    const held = heldOpen();
    const { p } = await connect("hook", { HOOK_SECRET: "s" }, held.open);
    const post = (id: string, text: string) => {
      const body = JSON.stringify({ id, sender_id: "crm", text });
      return p.channel.handleHttp!({ method: "POST", headers: { "content-type": "application/json", ...signPrx("s", body, Date.now()) }, body });
    };
    const answers = [post("a1", "one"), post("a2", "two"), post("a3", "three")];
    await Bun.sleep(50);
    expect(h.provider.chatRequests()).toHaveLength(0);
    held.release();
    const bodies = (await Promise.all(answers)).map((r) => JSON.parse(r.body) as { reply: string });
    expect(bodies.map((b) => b.reply)).toEqual(["echo: one", "echo: two", "echo: three"]);
    expect(handledByLastText(h.provider).map(([text]) => text)).toEqual(["one", "two", "three"]);
  });

  test("a host that fails to open after connecting ends the process with its error; the connection is stopped", async () => {
    tg = startFakeTelegram();
    h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    // the workspace database cannot be opened: a directory stands where its file goes
    mkdirSync(join(h.dir, "data", "prx.db"), { recursive: true });
    const { p, connected } = await connect("telegram", { TG: tg.token }, async (options) => (await import("../../src/channels/participant.ts")).openParticipant(options));
    expect(connected).toHaveLength(1);
    const error = await p.closed.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain("prx.db");
    await expect(p.opened()).rejects.toBe(error);
    const calls = tg.calls.length;
    await Bun.sleep(100);
    expect(tg.calls.length).toBe(calls);
  });

  test("a stop while the host opens waits for it, closes what it opened, and ends cleanly", async () => {
    tg = startFakeTelegram();
    h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
    const held = heldOpen();
    const { p } = await connect("telegram", { TG: tg.token }, held.open);
    tg.message({ chatId: 1, text: "not yet" });
    const stopped = p.stop();
    held.release();
    await stopped;
    await p.closed;
    const outcome = await p.opened().then(
      () => "opened",
      (e: unknown) => (isPrxError(e, "ABORTED") ? "aborted" : String(e)),
    );
    expect(outcome).toBe("aborted");
    // the open saw the stop and closed the host it had opened: the workspace database has no connection left (SQLite
    // removes its WAL files when the last one closes)
    expect(held.outcomes).toHaveLength(1);
    expect(isPrxError(held.outcomes[0], "ABORTED")).toBe(true);
    expect(existsSync(join(h.dir, "data", "prx.db"))).toBe(true);
    expect(existsSync(join(h.dir, "data", "prx.db-wal"))).toBe(false);
    // the message stays at the platform for the next start
    expect(tg.pending()).toBe(1);
    expect(tg.sent).toHaveLength(0);
  });

  test("a request waiting for a host that fails to open is refused with why; the process ends with the host's error", async () => {
    h = channelHarness(`[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n`);
    const held = heldOpen();
    const syncWaitMs = 50;
    const { p } = await connect("hook", { HOOK_SECRET: "s" }, held.open, { webhookSyncWaitMs: syncWaitMs });
    const body = JSON.stringify({ id: "w1", sender_id: "crm", text: "hello" });
    const waiting = p.channel.handleHttp!({ method: "POST", headers: signPrx("s", body, Date.now()), body }).then(
      () => "answered",
      (e: unknown) => (e as Error).message,
    );
    const failure = new PrxError("STORAGE", "the storage backend is unreachable");
    held.fail(failure);
    await expect(p.closed).rejects.toBe(failure);
    await expect(p.opened()).rejects.toBe(failure);
    expect(await waiting).toContain("the storage backend is unreachable");
    expect(h.provider.chatRequests()).toHaveLength(0);
    // no reply is waited for on its behalf: nothing times out later (an unhandled rejection would fail the run)
    await Bun.sleep(syncWaitMs * 2);
  });
});
