/**
 * End-to-end: a session of several hundred turns with a small context window, through the compiled binary's gateway
 * and a fake OpenAI-compatible provider that records every request and summarises as a model would (keeping facts).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { startFakeOpenAI, type FakeServer, type RecordedRequest } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(300_000);

const WINDOW = 4096;
const REPLY_ROOM = 512;
const TURNS = 300;
const FACT = "the code word is HERON-7731";

type Body = { messages: Array<{ role: string; content: string | null }>; tools?: unknown[] };

const textOf = (body: Body) => body.messages.map((m) => m.content ?? "").join("\n");

/** Summaries keep every fact line ("... is X") they are given, earlier summary included, and say how much they read. */
function summarise(body: Body): string {
  const input = body.messages.at(-1)!.content ?? "";
  const facts = [...new Set(input.match(/the code word is [A-Z]+-\d+/g) ?? [])];
  return `Facts: ${facts.join("; ") || "none"}. Earlier turns were small talk about numbered topics.`;
}

function answer(request: RecordedRequest) {
  const body = request.body as Body;
  if (body.messages[0]?.content === SUMMARY_INSTRUCTIONS) return { type: "text" as const, text: summarise(body) };
  const last = body.messages.at(-1)!.content ?? "";
  if (last.startsWith("what is the code word")) {
    const found = /the code word is ([A-Z]+-\d+)/.exec(textOf({ messages: body.messages.slice(0, -1) }));
    return { type: "text" as const, text: found ? `It is ${found[1]}.` : "I do not know." };
  }
  return { type: "text" as const, text: `noted: ${last.slice(0, 120)}` };
}

let fake: FakeServer;
let gateway: RunningGateway;
let dir = "";
let token = "";
let cleanup = () => {};

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  fake.script(answer);
  const info = `[providers.fake.model_info."fake-model"]\ncontext_window = ${WINDOW}\nmax_output_tokens = ${REPLY_ROOM}\n`;
  const ws = tempWorkspace(
    fakeProviderConfig(fake.url, `models = ["fake-model"]\n${info}[reliability]\nretries = 0\n[memory]\nauto_recall = false\n[agent]\nmax_history_messages = 200\n[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n`),
    { prefix: "prx-compact-" },
  );
  cleanup = ws.cleanup;
  dir = ws.dir;
  gateway = await startGatewayBinary(dir);
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
}, 300_000);

afterAll(async () => {
  if (gateway?.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway?.proc.exited;
  await fake?.stop();
  cleanup();
});

async function say(session: string, message: string): Promise<string> {
  const response = await fetch(`${gateway.url}/api/sessions/${session}/message`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { reply: string }).reply;
}

describe("compaction through the binary", () => {
  test(`${TURNS} turns in a ${WINDOW}-token window: every request fits, the summary carries an early fact`, async () => {
    const session = "long-1";
    await say(session, `Remember this: ${FACT}.`);
    for (let i = 1; i < TURNS; i++) {
      await say(session, `Turn ${i}: let us talk about topic number ${i}, which has a longish description so the window fills up quickly. ${"words ".repeat(20)}`);
    }
    const reply = await say(session, "what is the code word?");
    expect(reply).toBe("It is HERON-7731.");

    const chats = fake.chatRequests().map((r) => r.body as Body);
    const turns = chats.filter((b) => b.messages[0]?.content !== SUMMARY_INSTRUCTIONS);
    const summaries = chats.filter((b) => b.messages[0]?.content === SUMMARY_INSTRUCTIONS);
    expect(turns.length).toBe(TURNS + 1);
    expect(summaries.length).toBeGreaterThan(3);
    // what the provider receives, counted as it counts (the fake's usage): messages and tool definitions
    for (const body of chats) {
      const size = Math.ceil((JSON.stringify(body.messages) + (body.tools ? JSON.stringify(body.tools) : "")).length / 4);
      expect(size).toBeLessThanOrEqual(WINDOW - REPLY_ROOM);
    }
    const last = turns.at(-1)!;
    expect(last.messages[0]!.content).toContain("Summary of the earlier conversation");
    expect(last.messages[0]!.content).toContain(FACT);
    // the early message itself is long out of the prompt
    expect(last.messages.slice(1).some((m) => (m.content ?? "").includes("Remember this"))).toBe(false);

    // nothing was deleted: every message is in the store, and the summaries with their ranges
    const db = new Database(join(dir, "data", "prx.db"), { readonly: true });
    try {
      const count = db.query<{ n: number }, []>("SELECT count(*) AS n FROM session_messages WHERE session_id = 'long-1'").get()!.n;
      expect(count).toBe(2 * (TURNS + 1));
      const kept = db.query<{ through_seq: number; from_seq: number; model: string }, []>("SELECT through_seq, from_seq, model FROM session_summaries WHERE session_id = 'long-1' ORDER BY through_seq").all();
      expect(kept.length).toBe(summaries.length);
      expect(kept[0]!.from_seq).toBe(1);
      for (let i = 1; i < kept.length; i++) expect(kept[i]!.from_seq).toBe(kept[i - 1]!.through_seq + 1);
      expect(kept.every((s) => s.model === "fake-model")).toBe(true);
    } finally {
      db.close();
    }

    // the session as the API shows it: all messages, the summaries where they stand
    const shown = await fetch(`${gateway.url}/api/sessions/${session}?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    const detail = (await shown.json()) as { messages: unknown[]; summaries: Array<{ content: string; through_seq: number }> };
    expect(detail.messages.length).toBe(2 * (TURNS + 1));
    expect(detail.summaries.at(-1)!.content).toContain(FACT);
  });

  test("POST /api/sessions/:id/compact folds everything so far; a second one has nothing new", async () => {
    const session = "manual-1";
    await say(session, `Remember this: ${FACT}.`);
    await say(session, "and another thing");
    const compact = () => fetch(`${gateway.url}/api/sessions/${session}/compact`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    const first = (await (await compact()).json()) as { compacted: boolean; folded: number; summary: { through_seq: number; content: string } };
    expect(first).toMatchObject({ compacted: true, folded: 4, summary: { through_seq: 4 } });
    expect(first.summary.content).toContain(FACT);
    const again = (await (await compact()).json()) as { compacted: boolean; folded: number };
    expect(again).toMatchObject({ compacted: false, folded: 0 });
    const reply = await say(session, "what is the code word?");
    expect(reply).toBe("It is HERON-7731.");
    const missing = await fetch(`${gateway.url}/api/sessions/nope/compact`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    expect(missing.status).toBe(404);
  });
});
