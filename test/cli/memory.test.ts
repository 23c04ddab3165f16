/** `prx memory` and `prx sessions` as a user runs them: real processes of src/cli/main.ts on a real workspace. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { SqliteSessionStore } from "../../src/agent/sessions.ts";
import { openSqliteDatabase } from "../../src/storage/index.ts";
import { SESSIONS_LIST_MAX } from "../../src/gateway/limits.ts";
import { MEMORY_LIST_MAX } from "../../src/memory/limits.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { fakeProviderConfig } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");
let fake: FakeServer;
const cleanups: Array<() => void> = [];

beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(async () => {
  await fake.stop();
  for (const cleanup of cleanups) cleanup();
});

function workspace(): string {
  const ws = tempWorkspace(fakeProviderConfig(fake.url), { prefix: "prx-cli-memory-" });
  cleanups.push(ws.cleanup);
  return ws.dir;
}

async function prx(ws: string, args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, "--workspace", ws], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, PRX_LOG: "warn" },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const lastSystemPrompt = () =>
  (fake.chatRequests().at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages[0]!.content;

describe("prx memory", () => {
  test("store (private), list, search, show, forget; a private memory never reaches the prompt of prx agent", async () => {
    const ws = workspace();
    expect((await prx(ws, ["memory", "store", "bank_pin", "bank card PIN 1234", "--private"])).stdout).toBe(
      'stored private memory "bank_pin"\n',
    );
    await prx(ws, ["memory", "store", "bank", "main bank is Monzo; the card PIN is in 1Password", "--category", "finance"]);
    const listed = JSON.parse((await prx(ws, ["memory", "list", "--json"])).stdout);
    expect(listed.entries.map((e: { key: string; private: boolean }) => [e.key, e.private])).toEqual([
      ["bank", false],
      ["bank_pin", true],
    ]);
    expect((await prx(ws, ["memory", "search", "bank", "PIN"])).stdout).toContain("bank_pin [core, private] 1.00");
    expect((await prx(ws, ["memory", "show", "bank_pin"])).stdout).toContain("private: never added to a prompt");
    const turn = await prx(ws, ["agent", "-m", "what is my bank PIN?"]);
    expect(turn.code).toBe(0);
    expect(lastSystemPrompt()).toContain("- bank: main bank is Monzo");
    expect(lastSystemPrompt()).not.toContain("1234");
    const forget = await prx(ws, ["memory", "forget", "bank_pin", "missing"]);
    expect([forget.code, forget.stdout]).toEqual([1, 'forgot "bank_pin"\nno memory with key "missing"\n']);
    const gone = await prx(ws, ["memory", "show", "bank_pin"]);
    expect([gone.code, gone.stderr]).toEqual([1, 'error: no memory with key "bank_pin"\n  hint: list keys with `prx memory list` or find them with `prx memory search <words>`\n']);
    expect((await prx(ws, ["memory", "search", "1234"])).stdout).toBe("no memories matched\n");
  });

  test("export to a 0600 file, import it into another workspace; a bad file is refused whole, naming its lines", async () => {
    const ws = workspace();
    await prx(ws, ["memory", "store", "pin", "alarm code 4821", "--private"]);
    await prx(ws, ["memory", "store", "mood", "cheerful", "--session", "s1"]);
    const file = join(ws, "memories.jsonl");
    expect((await prx(ws, ["memory", "export", "--output", file])).stderr).toBe(`exported 2 memories to ${file}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const other = workspace();
    expect(JSON.parse((await prx(other, ["memory", "import", file, "--json"])).stdout)).toEqual({ entries: 2, created: 2, replaced: 0 });
    expect((await prx(other, ["memory", "export"])).stdout).toBe(readFileSync(file, "utf8"));
    const bad = await prx(other, ["memory", "import", "-"], '{"key":"new","content":"x"}\n{"key":"pin"}\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("memory import refused, nothing was imported: line 2: content:");
    expect(JSON.parse((await prx(other, ["memory", "list", "--json"])).stdout).total).toBe(2);
  });

  test(`list pages hold at most MEMORY_LIST_MAX (${MEMORY_LIST_MAX}) entries; usage errors exit 2`, async () => {
    const ws = workspace();
    const lines = Array.from({ length: MEMORY_LIST_MAX + 1 }, (_, i) => JSON.stringify({ key: `k${i}`, content: `note ${i}` }));
    await prx(ws, ["memory", "import", "-"], lines.join("\n"));
    const atMax = JSON.parse((await prx(ws, ["memory", "list", "--json", "--limit", String(MEMORY_LIST_MAX + 1)])).stdout);
    expect([atMax.entries.length, atMax.total, atMax.limit]).toEqual([MEMORY_LIST_MAX, MEMORY_LIST_MAX + 1, MEMORY_LIST_MAX]);
    const last = (await prx(ws, ["memory", "list", "--offset", String(MEMORY_LIST_MAX)])).stdout.trim().split("\n");
    expect(last).toEqual(["k0 [core]  note 0", `(${MEMORY_LIST_MAX + 1}-${MEMORY_LIST_MAX + 1} of ${MEMORY_LIST_MAX + 1})`]);
    const unknown = await prx(ws, ["memory", "forgt", "k1"]);
    expect([unknown.code, unknown.stderr]).toEqual([2, "error: prx memory: unknown subcommand 'forgt'; did you mean 'forget'? (see prx memory --help)\n"]);
    expect((await prx(ws, ["memory", "list", "--limit", "many"])).code).toBe(2);
  });
});

describe("prx sessions", () => {
  test("list, show, export and delete a conversation: its messages and session memories are gone", async () => {
    const ws = workspace();
    expect((await prx(ws, ["agent", "-m", "hello there", "--session", "talk-1"])).code).toBe(0);
    await prx(ws, ["memory", "store", "mood", "cheerful", "--session", "talk-1"]);
    const listed = JSON.parse((await prx(ws, ["sessions", "list", "--json"])).stdout);
    expect(listed.sessions.map((s: { id: string; message_count: number }) => [s.id, s.message_count])).toEqual([["talk-1", 2]]);
    expect((await prx(ws, ["sessions", "show", "talk-1"])).stdout).toContain("#1 user");
    const exported = (await prx(ws, ["sessions", "export"])).stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(exported.map((s) => [s.id, s.messages.length])).toEqual([["talk-1", 2]]);
    const deleted = await prx(ws, ["sessions", "delete", "talk-1"]);
    expect(deleted.stdout).toBe("deleted session talk-1: 2 messages, 1 session memories\n");
    const db = openSqliteDatabase(join(ws, "data", "prx.db"));
    try {
      expect(db.query("SELECT count(*) AS n FROM session_messages").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    const again = await prx(ws, ["sessions", "delete", "talk-1"]);
    expect([again.code, again.stderr.split("\n")[0]]).toEqual([1, 'error: no session "talk-1"']);
    expect((await prx(ws, ["memory", "show", "mood"])).code).toBe(1);
  });

  test("compact: the conversation so far becomes its summary, which show prints after the last message it covers", async () => {
    const ws = workspace();
    expect((await prx(ws, ["agent", "-m", "the ferry leaves at nine", "--session", "talk-2"])).code).toBe(0);
    fake.script((r) => {
      const body = r.body as { messages: Array<{ content: string | null }> };
      return body.messages[0]?.content === SUMMARY_INSTRUCTIONS ? { type: "text", text: "The ferry leaves at nine." } : undefined;
    });
    try {
      const compacted = await prx(ws, ["sessions", "compact", "talk-2"]);
      expect([compacted.code, compacted.stdout]).toEqual([0, "session talk-2: 2 messages folded into the summary of messages 1-2 (by fake-model)\n"]);
      const again = JSON.parse((await prx(ws, ["sessions", "compact", "talk-2", "--json"])).stdout);
      expect(again).toMatchObject({ session_id: "talk-2", compacted: false, folded: 0, summary: { from_seq: 1, through_seq: 2, model: "fake-model" } });
    } finally {
      fake.script(undefined);
    }
    expect((await prx(ws, ["agent", "-m", "and then?", "--session", "talk-2"])).code).toBe(0);
    const shown = (await prx(ws, ["sessions", "show", "talk-2"])).stdout;
    const at = (text: string) => shown.indexOf(text);
    expect(at("#2 assistant")).toBeGreaterThan(0);
    expect(at("-- summary of messages 1-2 (by fake-model")).toBeGreaterThan(at("#2 assistant"));
    expect(at("The ferry leaves at nine.")).toBeGreaterThan(at("-- summary"));
    expect(at("#3 user")).toBeGreaterThan(at("The ferry leaves at nine."));
    const json = JSON.parse((await prx(ws, ["sessions", "show", "talk-2", "--json"])).stdout);
    expect([json.messages.length, json.summaries.map((x: { through_seq: number }) => x.through_seq)]).toEqual([4, [2]]);
    const missing = await prx(ws, ["sessions", "compact", "nope"]);
    expect([missing.code, missing.stderr.split("\n")[0]]).toEqual([1, 'error: no session "nope"']);
  });

  test(`list shows at most SESSIONS_LIST_MAX (${SESSIONS_LIST_MAX}) sessions`, async () => {
    const ws = workspace();
    const path = join(ws, "data", "prx.db");
    await prx(ws, ["sessions", "list"]); // creates the workspace and its database
    const db = openSqliteDatabase(path);
    const store = new SqliteSessionStore(db);
    for (let i = 0; i <= SESSIONS_LIST_MAX; i++) store.ensure(`s${i}`, "test");
    db.close();
    const all = JSON.parse((await prx(ws, ["sessions", "list", "--json", "--limit", String(SESSIONS_LIST_MAX + 1)])).stdout);
    expect(all.sessions).toHaveLength(SESSIONS_LIST_MAX);
    const two = JSON.parse((await prx(ws, ["sessions", "list", "--json", "--limit", "2"])).stdout);
    expect(two.sessions).toHaveLength(2);
  });
});
