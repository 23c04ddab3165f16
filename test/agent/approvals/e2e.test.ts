/**
 * The built binary against the fake provider (it calls a tool when told "use tool <name> <json>"): under the default
 * `[autonomy] level = "supervised"` a `shell` call waits; it is approved through the API and runs; denied by the
 * owner's reply in Telegram; a non-owner's reply is ignored; no answer in time is a denial; `prx agent -m` refuses
 * without --yes. Every case is in the audit log (GET /api/audit and `prx audit --json`) with its decision.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../../fakes/telegram-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../../helpers/binary.ts";
import { waitFor } from "../../helpers/wait.ts";
import { tempWorkspace, type TempWorkspace } from "../../helpers/workspace.ts";

setDefaultTimeout(60_000);

const OWNER = 1001;
const STRANGER = 1002;
const SHELL = `[tools]\nshell_enabled = true\nshell_allowlist = ["echo"]\n`;
const NO_LIMITS = `[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n`;

let provider: FakeServer;
let tg: FakeTelegram;
let ws: TempWorkspace;
let gateway: RunningGateway;
let headers: Record<string, string>;

interface Approval {
  id: string;
  code: string;
  tool: string;
  arguments_preview: string;
  session_id: string;
  channel: string;
}
interface AuditRow {
  session_id: string;
  channel: string;
  sender: string | null;
  tool: string;
  risk: string;
  decision: string;
  decided_by: string;
  outcome: string;
  arguments_preview: string;
}

async function pair(g: RunningGateway): Promise<Record<string, string>> {
  const paired = await fetch(`${g.url}/pair`, { method: "POST", headers: { "x-pairing-code": g.code! } });
  return { authorization: `Bearer ${((await paired.json()) as { token: string }).token}`, "content-type": "application/json" };
}

async function pendingApprovals(g: RunningGateway, h: Record<string, string>): Promise<Approval[]> {
  const response = await fetch(`${g.url}/api/approvals`, { headers: h });
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: Approval[] }).approvals;
}

async function approvalOf(g: RunningGateway, h: Record<string, string>, sessionId: string): Promise<Approval> {
  return waitFor(async () => (await pendingApprovals(g, h)).find((a) => a.session_id === sessionId) ?? null, () => `no approval for ${sessionId}`);
}

async function audit(g: RunningGateway, h: Record<string, string>, query = ""): Promise<AuditRow[]> {
  const response = await fetch(`${g.url}/api/audit${query}`, { headers: h });
  expect(response.status).toBe(200);
  return ((await response.json()) as { entries: AuditRow[] }).entries;
}

function say(g: RunningGateway, h: Record<string, string>, session: string, message: string): Promise<{ reply: string }> {
  return fetch(`${g.url}/api/sessions/${session}/message`, { method: "POST", headers: h, body: JSON.stringify({ message }) }).then(
    async (r) => {
      if (r.status !== 200) throw new Error(`message answered ${r.status}: ${await r.text()}`);
      return (await r.json()) as { reply: string };
    },
  );
}

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  tg = startFakeTelegram();
  ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n${SHELL}${NO_LIMITS}` +
        `[channels.tg]\nkind = "telegram"\nenabled = true\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\n` +
        `dm_policy = "open"\ngroup_policy = "open"\nowners = ["${OWNER}"]\n`,
      null,
    ),
  );
  gateway = await startGatewayBinary(ws.dir, { TG_TOKEN: tg.token });
  headers = await pair(gateway);
}, 120_000);

afterAll(async () => {
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  await tg?.stop();
  await provider?.stop();
  ws?.cleanup();
});

test("a supervised shell call waits, is approved through the API, runs, and is audited as allowed by the API", async () => {
  const turn = say(gateway, headers, "approve-api", 'use tool shell {"command":["echo","approved-run"]}');
  const pending = await approvalOf(gateway, headers, "approve-api");
  expect(pending).toMatchObject({ tool: "shell", channel: "gateway" });
  expect(pending.arguments_preview).toContain("approved-run");
  expect(pending.code).toMatch(/^\d{4}$/);
  const decided = await fetch(`${gateway.url}/api/approvals/${pending.id}`, {
    method: "POST",
    headers,
    body: JSON.stringify({ decision: "allow" }),
  });
  expect(decided.status).toBe(200);
  expect((await turn).reply).toContain("approved-run");
  // answered once: a second answer is a conflict
  const again = await fetch(`${gateway.url}/api/approvals/${pending.id}`, { method: "POST", headers, body: JSON.stringify({ decision: "deny" }) });
  expect(again.status).toBe(409);
  const [entry] = await audit(gateway, headers, "?tool=shell&limit=1");
  expect(entry).toMatchObject({ session_id: "approve-api", tool: "shell", risk: "execute", decision: "allow", decided_by: "api", outcome: "ok" });
});

test("a decision names one of allow, allow_session, deny; an unknown approval is 404", async () => {
  const bad = await fetch(`${gateway.url}/api/approvals/apr_nope`, { method: "POST", headers, body: JSON.stringify({ decision: "maybe" }) });
  expect(bad.status).toBe(400);
  const unknown = await fetch(`${gateway.url}/api/approvals/apr_nope`, { method: "POST", headers, body: JSON.stringify({ decision: "deny" }) });
  expect(unknown.status).toBe(404);
});

test("in Telegram the assistant asks in the chat; a non-owner's answer is ignored and the owner's 'no' denies the call", async () => {
  const before = tg.sent.length;
  tg.message({ chatId: -500, chatType: "group", fromId: STRANGER, text: 'use tool shell {"command":["echo","denied-run"]}' });
  const [question] = (await tg.waitForSent(before + 1)).slice(before);
  const code = /yes (\d{4})/.exec(question!.visible)?.[1];
  expect(code).toMatch(/^\d{4}$/);
  expect(question!.visible).toContain("shell");
  // someone else answers "yes": nothing is decided and nothing is said
  tg.message({ chatId: -500, chatType: "group", fromId: STRANGER, text: `yes ${code}` });
  const stillPending = await waitFor(async () => {
    const rows = await pendingApprovals(gateway, headers);
    return rows.some((a) => a.code === code && a.channel === "tg") ? rows : null;
  }, () => "the approval to stay pending");
  expect(stillPending.length).toBeGreaterThan(0);
  // while the turn waits for the owner, its session shows the message it answers (and nothing of the turn yet)
  const session = stillPending.find((a) => a.code === code)!.session_id;
  const shown = await fetch(`${gateway.url}/api/sessions/${encodeURIComponent(session)}/messages`, { headers });
  expect(shown.status).toBe(200);
  const waiting = ((await shown.json()) as { messages: Array<{ role: string; content: string }> }).messages;
  expect(waiting.map((m) => [m.role, m.content])).toEqual([["user", 'use tool shell {"command":["echo","denied-run"]}']]);
  tg.message({ chatId: -500, chatType: "group", fromId: OWNER, text: `no ${code}` });
  const replies = (await tg.waitForSent(before + 3)).slice(before + 1).map((m) => m.visible);
  expect(replies).toContain("Denied: shell.");
  expect(replies.some((r) => r.includes("the owner denied it"))).toBe(true);
  expect(replies.some((r) => r.includes("denied-run\n"))).toBe(false);
  const entry = (await audit(gateway, headers, "?tool=shell")).find((e) => e.channel === "tg")!;
  expect(entry).toMatchObject({ sender: String(STRANGER), decision: "deny", decided_by: `owner:${OWNER}`, outcome: "not_run" });
  // the user's message is in the session once, before the turn's tool round and answer
  const ended = await waitFor(async () => {
    const response = await fetch(`${gateway.url}/api/sessions/${encodeURIComponent(session)}/messages`, { headers });
    const messages = ((await response.json()) as { messages: Array<{ role: string }> }).messages;
    return messages.length > 1 ? messages : null;
  }, () => "the turn's answer in the session");
  expect(ended.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  // the stranger's "yes" was not taken as a message for the assistant either
  expect(tg.sent.slice(before).some((m) => m.visible.includes(`echo: yes ${code}`))).toBe(false);
});

test("no answer within approval_timeout_s is a denial the model is told about, audited as a timeout", async () => {
  const short = tempWorkspace(fakeProviderConfig(provider.url, `${SHELL}${NO_LIMITS}[autonomy]\napproval_timeout_s = 1\n`, null));
  const g = await startGatewayBinary(short.dir);
  try {
    const h = await pair(g);
    const { reply } = await say(g, h, "times-out", 'use tool shell {"command":["echo","late"]}');
    expect(reply).toContain("did not answer within 1 s ([autonomy] approval_timeout_s)");
    const [entry] = await audit(g, h, "?tool=shell");
    expect(entry).toMatchObject({ session_id: "times-out", decision: "timeout", decided_by: "timeout", outcome: "not_run" });
    expect(await pendingApprovals(g, h)).toEqual([]);
  } finally {
    g.proc.kill("SIGTERM");
    await g.proc.exited;
    short.cleanup();
  }
});

test("prx agent -m refuses a call that needs approval, naming the setting, and runs it with --yes; prx audit shows both", async () => {
  const one = tempWorkspace(fakeProviderConfig(provider.url, SHELL, null));
  try {
    const message = 'use tool shell {"command":["echo","one-shot"]}';
    const refused = await runPrx(["agent", "-m", message, "-w", one.dir, "--session", "refused"], { env: { HOME: one.dir } });
    expect(refused.code).toBe(0);
    expect(refused.stdout).toContain('[autonomy] level = "supervised"');
    expect(refused.stdout).toContain("--yes");
    expect(refused.stderr).toContain("needs the owner's approval");
    const allowed = await runPrx(["agent", "-m", message, "--yes", "-w", one.dir, "--session", "allowed"], { env: { HOME: one.dir } });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain("one-shot");
    const listed = await runPrx(["audit", "--json", "--tool", "shell", "-w", one.dir], { env: { HOME: one.dir } });
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as AuditRow[];
    expect(rows.map((r) => [r.session_id, r.decision, r.decided_by, r.outcome])).toEqual([
      ["allowed", "allow", "--yes", "ok"],
      ["refused", "deny", "no-approver", "not_run"],
    ]);
    const text = await runPrx(["audit", "-w", one.dir], { env: { HOME: one.dir } });
    expect(text.stdout).toContain("shell");
    expect(text.stdout).toContain("no-approver");
  } finally {
    one.cleanup();
  }
});
