/**
 * Three replicas sharing PostgreSQL run the cron tool's jobs, each sending through its own Telegram channel to the
 * fake Bot API: an `at` reminder reaches the chat once (sent by whichever replica claims its slot), and an `every`
 * job once per slot, whichever replica the job was added through.
 */
import { expect } from "bun:test";
import { ChannelConfigSchema } from "../../../src/config/schema.ts";
import { TelegramChannel } from "../../../src/channels/telegram/channel.ts";
import { startFakeTelegram } from "../../fakes/telegram-server.ts";
import { sharedPgStores } from "../../helpers/pg-stores.ts";
import { FakeClock } from "../../plugins/cron/fake-clock.ts";
import { captureLogger } from "../../plugins/events/log.ts";
import { advance, cronTool, parsed, telegramRunner, type Delivery } from "./harness.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
const { stores: replicas, test: testWithPostgres } = await sharedPgStores("cron_tool", 3);

testWithPostgres("an at reminder and an every job reach the Telegram chat once per slot with three replicas on PostgreSQL", async () => {
  const tg = startFakeTelegram();
  const config = ChannelConfigSchema.parse({ token_env: "TG", api_base_url: tg.url });
  const clock = new FakeClock(T0);
  const deliveries: Delivery[] = [];
  const runners = replicas.map((s, i) => {
    const channel = new TelegramChannel({ name: "telegram", config, env: { TG: tg.token }, logger: captureLogger(), cursor: { get: () => null, set: () => {} } });
    const send = (chatId: string, text: string) => channel.send({ chatId, threadId: null, replyTo: null, text });
    return telegramRunner(s, clock, `replica-${i}`, deliveries, [], send).runner;
  });
  for (const r of runners) await r.start();
  // added through replica 2: the others read it at their next poll
  const reminder = parsed(
    await cronTool(replicas[2]!, clock)({ action: "add", schedule: { kind: "at", at: new Date(T0 + 2000).toISOString() }, payload: { kind: "systemEvent", text: "stand up" } }),
  );
  parsed(await cronTool(replicas[0]!, clock)({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "minute" } }));
  await advance(clock, T0 + 181_000, runners);
  expect(deliveries.filter((d) => d.text === "stand up").map((d) => d.at)).toEqual([T0 + 2000]);
  expect(deliveries.filter((d) => d.text === "minute").map((d) => d.at - T0)).toEqual([60_000, 120_000, 180_000]);
  expect(await replicas[1]!.cronJobs.get(reminder.id)).toBeNull();
  const history = await replicas[0]!.sessions.history("telegram:42", 10);
  expect(history.filter((m) => m.content === "stand up").length).toBe(1);
  expect(tg.sent.map((m) => [m.chat_id, m.visible])).toEqual([
    ["42", "stand up"],
    ["42", "minute"],
    ["42", "minute"],
    ["42", "minute"],
  ]);
  for (const r of runners) await r.stop();
  await tg.stop();
});
