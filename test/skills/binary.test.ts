/**
 * Agent Skills through the built binary: skills of a published collection (folders copied as they are) are listed by
 * `prx skills list`; their descriptions, never their bodies, reach the fake provider's system prompt; the skill tool
 * returns a body with {baseDir} replaced; skills gated on os, bins and env are left out with the reason shown; a
 * skill's script runs through the shell tool only after it is approved (supervised).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";
import { SKILL_FILE_MAX_BYTES } from "../../src/skills/limits.ts";
import { PUBLISHED, skillText, writeSkill } from "./helpers.ts";

setDefaultTimeout(60_000);

const OTHER_OS = process.platform === "linux" ? "darwin" : "linux";
let provider: FakeServer;
let ws: TempWorkspace;
let gateway: RunningGateway;
let headers: Record<string, string>;
let runnerDir: string;

interface Listed {
  skills: { name: string; description: string; source: string; eligible: boolean; reasons: string[]; shadowed: { dir: string; source: string }[] }[];
  invalid: { dir: string; error: string }[];
}

function say(session: string, message: string): Promise<{ reply: string }> {
  return fetch(`${gateway.url}/api/sessions/${session}/message`, { method: "POST", headers, body: JSON.stringify({ message }) }).then(async (r) => {
    if (r.status !== 200) throw new Error(`message answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as { reply: string };
  });
}

const systemPrompts = () =>
  provider.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => (r.body.messages[0] as { role: string; content: string }).content);

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n[tools]\nshell_enabled = true\nshell_allowlist = ["sh"]\n` +
        `[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n` +
        `[skills.entries.runner]\nenv = { RUNNER_GREETING = { from_env = "PRX_SKILLS_TEST_GREETING" } }\n`,
      null,
    ),
  );
  const workspaceSkills = join(ws.dir, "skills");
  const userSkills = join(ws.dir, ".agents", "skills");
  mkdirSync(userSkills, { recursive: true });
  cpSync(join(PUBLISHED, "brand-guidelines"), join(workspaceSkills, "brand-guidelines"), { recursive: true });
  cpSync(join(PUBLISHED, "internal-comms"), join(workspaceSkills, "internal-comms"), { recursive: true });
  cpSync(join(PUBLISHED, "webapp-testing"), join(userSkills, "webapp-testing"), { recursive: true });
  runnerDir = realpathSync(
    writeSkill(workspaceSkills, "runner", skillText("runner", "Says hello through its script.", "Run `sh {baseDir}/scripts/hello.sh` with the shell tool.\n"), {
      "scripts/hello.sh": 'echo ran > ran-marker.txt\necho "hello from the skill script, greeting=$RUNNER_GREETING"\n',
    }),
  );
  const gated = (name: string, openclaw: unknown) =>
    writeSkill(workspaceSkills, name, skillText(name, `GATED ${name}`, "", `metadata: ${JSON.stringify({ openclaw })}\n`));
  gated("needs-other-os", { os: [OTHER_OS] });
  gated("needs-bin", { requires: { bins: ["prx-no-such-program"] } });
  gated("needs-env", { requires: { env: ["PRX_SKILLS_TEST_KEY"] } });
  // SKILL.md at its size limit loads; one byte past is refused with the reason
  for (const [name, size] of [["at-limit", SKILL_FILE_MAX_BYTES], ["past-limit", SKILL_FILE_MAX_BYTES + 1]] as const) {
    const head = skillText(name, `sized ${name}`, "");
    writeSkill(workspaceSkills, name, head + "x".repeat(size - Buffer.byteLength(head)));
  }
  gateway = await startGatewayBinary(ws.dir, { PRX_SKILLS_TEST_GREETING: "hi-from-config" });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  headers = { authorization: `Bearer ${((await paired.json()) as { token: string }).token}`, "content-type": "application/json" };
}, 120_000);

afterAll(async () => {
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  await provider?.stop();
  ws?.cleanup();
});

test("prx skills list shows the published skills with name and description, what is gated and why, and what is shadowed", async () => {
  const listed = await runPrx(["skills", "list", "--json", "-w", ws.dir], { env: { HOME: ws.dir } });
  expect(listed.stderr).toBe("");
  const report = JSON.parse(listed.stdout) as Listed;
  const byName = Object.fromEntries(report.skills.map((s) => [s.name, s]));
  for (const name of ["brand-guidelines", "internal-comms", "webapp-testing"]) {
    const description = /^description: (.*)$/m.exec(readFileSync(join(PUBLISHED, name, "SKILL.md"), "utf8"))![1]!;
    expect(byName[name]).toMatchObject({ description, eligible: true, reasons: [] });
  }
  expect(byName["webapp-testing"]!.source).toBe("user");
  expect(byName["needs-other-os"]).toMatchObject({ eligible: false, reasons: [`runs on ${OTHER_OS}, not ${process.platform} (metadata.openclaw.os)`] });
  expect(byName["needs-bin"]!.reasons).toEqual(["needs prx-no-such-program on PATH (requires.bins)"]);
  expect(byName["needs-env"]!.reasons[0]).toContain("needs environment variable PRX_SKILLS_TEST_KEY");
  expect(byName["at-limit"]!.eligible).toBe(true);
  expect(byName["past-limit"]).toBeUndefined();
  expect(report.invalid.map((p) => [p.dir.split("/").pop(), p.error.includes(`over ${SKILL_FILE_MAX_BYTES}`)])).toEqual([["past-limit", true]]);

  const text = await runPrx(["skills", "list", "-w", ws.dir], { env: { HOME: ws.dir } });
  expect(text.stdout).toContain(`why not: needs prx-no-such-program on PATH (requires.bins)`);
  // the same name in the workspace shadows ~/.agents/skills
  cpSync(join(PUBLISHED, "webapp-testing"), join(ws.dir, "skills", "webapp-testing"), { recursive: true });
  const shadowed = JSON.parse((await runPrx(["skills", "list", "--json", "-w", ws.dir], { env: { HOME: ws.dir } })).stdout) as Listed;
  const winner = shadowed.skills.find((s) => s.name === "webapp-testing")!;
  expect(winner.source).toBe("workspace");
  expect(winner.shadowed).toEqual([{ dir: realpathSync(join(ws.dir, ".agents", "skills", "webapp-testing")), source: "user" }]);
  // the gated skill is offered once its variable is set
  const withKey = JSON.parse((await runPrx(["skills", "list", "--json", "-w", ws.dir], { env: { HOME: ws.dir, PRX_SKILLS_TEST_KEY: "k" } })).stdout) as Listed;
  expect(withKey.skills.find((s) => s.name === "needs-env")!.eligible).toBe(true);
});

test("GET /api/skills lists the same skills and reasons", async () => {
  const response = await fetch(`${gateway.url}/api/skills`, { headers });
  expect(response.status).toBe(200);
  const report = (await response.json()) as Listed;
  expect(report.skills.filter((s) => s.eligible).map((s) => s.name)).toContain("brand-guidelines");
  expect(report.skills.find((s) => s.name === "needs-bin")!.reasons).toEqual(["needs prx-no-such-program on PATH (requires.bins)"]);
  expect((await fetch(`${gateway.url}/api/skills`)).status).toBe(401);
});

test("the provider's system prompt holds the eligible skills' descriptions, not their bodies nor the gated ones", async () => {
  await say("skills-prompt", "hello");
  const system = systemPrompts().at(-1)!;
  for (const name of ["brand-guidelines", "internal-comms", "webapp-testing"]) {
    const description = /^description: (.*)$/m.exec(readFileSync(join(PUBLISHED, name, "SKILL.md"), "utf8"))![1]!;
    expect(system).toContain(`- ${name}: ${description}`);
  }
  expect(system).toContain("- runner: Says hello through its script.");
  expect(system).not.toContain("Anthropic Brand Styling");
  expect(system).not.toContain("hello.sh");
  expect(system).not.toContain("GATED");
  const offered = provider.requests.at(-1)!.body.tools.map((t: { function: { name: string } }) => t.function.name);
  expect(offered).toContain("skill");
});

test("the skill tool returns the body with {baseDir} replaced; the script runs only after its shell call is approved", async () => {
  const read = await say("skills-tool", 'use tool skill {"name":"runner"}');
  expect(read.reply).toContain(`Run \`sh ${runnerDir}/scripts/hello.sh\` with the shell tool.`);
  expect(read.reply).not.toContain("{baseDir}");

  // one turn: the model reads the skill, then runs its script as the body says
  provider.enqueue(
    { type: "tool_calls", calls: [{ name: "skill", arguments: { name: "runner" } }] },
    { type: "tool_calls", calls: [{ name: "shell", arguments: { command: ["sh", `${runnerDir}/scripts/hello.sh`] } }] },
  );
  const turn = say("skills-script", "say hello with the runner skill");
  const pending = await waitFor(async () => {
    const { approvals } = (await (await fetch(`${gateway.url}/api/approvals`, { headers })).json()) as { approvals: { id: string; session_id: string; tool: string }[] };
    return approvals.find((a) => a.session_id === "skills-script") ?? null;
  }, "the shell call's approval");
  expect(pending.tool).toBe("shell");
  expect(existsSync(join(ws.dir, "ran-marker.txt"))).toBe(false);
  const decided = await fetch(`${gateway.url}/api/approvals/${pending.id}`, { method: "POST", headers, body: JSON.stringify({ decision: "allow" }) });
  expect(decided.status).toBe(200);
  // the active skill's [skills.entries.runner] env reached the script
  expect((await turn).reply).toContain("hello from the skill script, greeting=hi-from-config");
  expect(readFileSync(join(ws.dir, "ran-marker.txt"), "utf8")).toBe("ran\n");
});

test("prx skills new, install and remove through the binary", async () => {
  const env = { HOME: ws.dir };
  expect((await runPrx(["skills", "new", "fresh-skill", "-w", ws.dir], { env })).code).toBe(0);
  const info = await runPrx(["skills", "-w", ws.dir, "info", "fresh-skill"], { env });
  expect(info.stdout).toContain("offered: yes");
  // the running gateway's list and skill tool look at once (a turn's prompt may answer from a look SKILLS_RESCAN_AFTER_MS old)
  const listed = (await (await fetch(`${gateway.url}/api/skills`, { headers })).json()) as Listed;
  expect(listed.skills.find((s) => s.name === "fresh-skill")?.eligible).toBe(true);
  expect((await say("skills-fresh", 'use tool skill {"name":"fresh-skill"}')).reply).toContain('Skill "fresh-skill"');
  const again = await runPrx(["skills", "install", join(PUBLISHED, "internal-comms"), "-w", ws.dir], { env });
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("already installed");
  const forced = await runPrx(["skills", "install", join(PUBLISHED, "internal-comms"), "--force", "-w", ws.dir], { env });
  expect(forced.stdout).toContain("replaced the one installed");
  expect((await runPrx(["skills", "remove", "fresh-skill", "-w", ws.dir], { env })).code).toBe(0);
  expect(existsSync(join(ws.dir, "skills", "fresh-skill"))).toBe(false);
});
