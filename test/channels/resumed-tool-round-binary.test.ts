/**
 * `prx channel run` from the compiled binary, killed (SIGKILL) in a turn after its first tool round: the round (the
 * call and its result) is in the session as soon as it completed, so the next process asks the provider with it in
 * context and does not run the call again. The tool appends a line to a file: after the restart it holds one line, and
 * the chat gets one reply.
 */
import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

let provider: FakeOpenAIServer;
let tg: FakeTelegram;
let ws: { dir: string; cleanup(): void } | undefined;
const running: Array<ReturnType<typeof Bun.spawn>> = [];
beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
});
afterAll(() => provider.stop());
afterEach(async () => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
  await tg.stop();
  ws?.cleanup();
});

function workspace(): string {
  tg = startFakeTelegram();
  const channel = `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`;
  ws = tempWorkspace(fakeProviderConfig(provider.url, `[tools]\nshell_enabled = true\nshell_allowlist = ["sh"]\n${channel}`));
  return ws.dir;
}

function start(dir: string): ReturnType<typeof Bun.spawn> {
  const proc = Bun.spawn([BINARY, "channel", "run", "tg", "-w", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, TG_TOKEN: tg.token },
    stdout: "ignore",
    stderr: "ignore",
  });
  running.push(proc);
  return proc;
}

/** The session's messages as (role, content), oldest first, read from the workspace database beside the process. */
function stored(dir: string): Array<[string, string]> {
  const path = join(dir, "data", "prx.db");
  if (!existsSync(path)) return [];
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ role: string; content: string }, []>("SELECT role, content FROM session_messages ORDER BY seq").all().map((m) => [m.role, m.content]);
  } catch {
    return []; // the process has not created its tables yet
  } finally {
    db.close();
  }
}

const ticks = (dir: string) => (existsSync(join(dir, "ticks.log")) ? readFileSync(join(dir, "ticks.log"), "utf8") : "");

test("a process killed after its turn's first tool round: the next one goes on from the stored round, the tool ran once, one reply", async () => {
  const dir = workspace();
  provider.reset();
  provider.enqueue(
    { type: "tool_calls", calls: [{ id: "call_tick", name: "shell", arguments: { command: ["sh", "-c", "echo tick >> ticks.log"] } }] },
    { type: "hang" },
  );
  const first = start(dir);
  tg.message({ chatId: 7, text: "tick once" });
  // the second model call is asked after the round was written
  await waitFor(() => provider.chatRequests().length === 2, "the model call after the tool round", 30_000);
  expect(ticks(dir)).toBe("tick\n");
  // the round is in the session while the turn waits for its next model call
  expect(stored(dir).map(([role]) => role)).toEqual(["user", "assistant", "tool"]);
  first.kill("SIGKILL");
  await first.exited;

  provider.enqueue({ type: "text", text: "ticked" });
  const second = start(dir);
  const sent = await tg.waitForSent(1, 30_000);
  expect(sent.map((s) => s.visible)).toEqual(["ticked"]);
  await waitFor(() => stored(dir).at(-1)?.[1] === "ticked", "the answer stored", 10_000);
  expect(ticks(dir)).toBe("tick\n");
  // the resumed turn's one model call carried the stored round: the call and its result, after the user's message
  const requests = provider.chatRequests();
  expect(requests).toHaveLength(3);
  const messages = (requests[2]!.body as { messages: Array<{ role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> }> }).messages;
  const tail = messages.slice(-3).map((m) => [m.role, m.tool_calls?.map((c) => c.id) ?? m.tool_call_id ?? m.content]);
  expect(tail).toEqual([
    ["user", "tick once"],
    ["assistant", ["call_tick"]],
    ["tool", "call_tick"],
  ]);
  expect(stored(dir).map(([role]) => role)).toEqual(["user", "assistant", "tool", "assistant"]);
  second.kill("SIGTERM");
  expect(await second.exited).toBe(0);
  expect(tg.sent.map((s) => s.visible)).toEqual(["ticked"]);
});
