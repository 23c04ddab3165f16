/**
 * The cron tool through a Telegram channel process: the assistant adds a reminder two seconds ahead from a chat, and
 * the channel process delivers it into that chat's session and to the chat once (then the job is gone).
 */
import { afterEach, expect, test } from "bun:test";
import { openSqliteDatabase } from "../../src/storage/index.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
afterEach(async () => {
  await h.close();
  await tg.stop();
});

test("a reminder added from a Telegram chat two seconds ahead is delivered into its session and to the chat once", async () => {
  tg = startFakeTelegram();
  h = channelHarness(
    `[autonomy.tools]\ncron = "allow"\n[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`,
  );
  const running = await h.start("telegram", { TG: tg.token });
  const at = new Date(Date.now() + 2000).toISOString();
  const args = { action: "add", schedule: { kind: "at", at }, payload: { kind: "systemEvent", text: "Reminder: stretch" } };
  tg.message({ chatId: 77, fromId: 5, text: `use tool cron ${JSON.stringify(args)}` });
  const [ack] = await tg.waitForSent(1);
  expect(ack!.visible).toContain('"next_run"');
  const [, reminder] = await tg.waitForSent(2);
  expect(reminder!.visible).toBe("Reminder: stretch");
  expect(reminder!.chat_id).toBe("77");
  // delivered, then removed: it cannot fire again
  await waitFor(async () => (await running.host.storage.cronJobs.count()) === 0, "the reminder's removal");
  expect(tg.sent.filter((s) => s.visible === "Reminder: stretch").length).toBe(1);
  const db = openSqliteDatabase(`${h.dir}/data/prx.db`);
  const rows = db.query("SELECT role, content FROM session_messages WHERE session_id = 'telegram:77' ORDER BY seq").all() as Array<{ role: string; content: string }>;
  db.close();
  expect(rows.at(-1)).toEqual({ role: "assistant", content: "Reminder: stretch" });
}, 30_000);
