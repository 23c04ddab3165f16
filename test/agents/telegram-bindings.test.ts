/** [[bindings]] route a channel's chats to agents: two Telegram chats, two agents, each with its prompt and model. */
import { afterEach, expect, test } from "bun:test";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "../channels/harness.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { openWorkspace } from "../../src/core/workspace.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
afterEach(async () => {
  await h.close();
  await tg.stop();
});

test("two chats bound to two agents are answered with their own system prompts and models; others go to main", async () => {
  tg = startFakeTelegram();
  h = channelHarness(
    `[channels.tg]\nkind = "telegram"\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n` +
      `[agent]\nsystem_prompt = "You are main."\n` +
      `[agents.work]\nsystem_prompt = "You are the work agent."\ndefault_model = "model-work"\n` +
      `[agents.home]\nsystem_prompt = "You are the home agent."\ndefault_model = "model-home"\n` +
      `[[bindings]]\nagent = "work"\nchannel = "tg"\npeer = "100"\n` +
      `[[bindings]]\nagent = "home"\nchannel = "tg"\npeer = "200"\n`,
  );
  await h.start("tg", { TG: tg.token });
  tg.message({ chatId: 100, text: "from the office" });
  tg.message({ chatId: 200, text: "from the kitchen" });
  tg.message({ chatId: 300, text: "from elsewhere" });
  const sent = await tg.waitForSent(3);
  expect(sent.map((s) => s.visible).sort()).toEqual(["echo: from elsewhere", "echo: from the kitchen", "echo: from the office"]);
  const byText = new Map<string, { model: string; system: string }>();
  for (const request of h.provider.chatRequests()) {
    const body = request.body as { model: string; messages: Array<{ role: string; content: string }> };
    byText.set(body.messages.at(-1)!.content, { model: body.model, system: body.messages[0]!.content });
  }
  expect(byText.get("from the office")).toEqual({ model: "model-work", system: "You are the work agent." });
  expect(byText.get("from the kitchen")).toEqual({ model: "model-home", system: "You are the home agent." });
  expect(byText.get("from elsewhere")).toEqual({ model: "fake-model", system: "You are main." });
  // each chat's session is its agent's conversation (a chat bound to another agent later would start its own)
  const storage = openSqliteStorage(openWorkspace(h.dir).dbPath);
  try {
    const agents = Object.fromEntries((await storage.sessions.list(10)).map((s) => [s.id, s.agent]));
    expect(agents).toEqual({ "work@tg:100": "work", "home@tg:200": "home", "tg:300": "main" });
  } finally {
    await storage.close();
  }
}, 30_000);
