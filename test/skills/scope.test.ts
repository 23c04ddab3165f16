import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../src/config/schema.ts";
import { SkillsConfigSchema } from "../../src/config/skills.ts";
import { scopeToSkills, SkillBook, skillToolSource, type ScopedTools } from "../../src/skills/index.ts";
import { ok } from "../../src/tools/result.ts";
import { skillText, writeSkill } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fixture() {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "prx-skills-scope-")));
  dirs.push(workspace);
  const root = join(workspace, "skills");
  writeSkill(root, "narrow", skillText("narrow", "Reads only.", "Use file_read.\n", "allowed-tools: file_read mcp__docs__*\n"));
  writeSkill(root, "open", skillText("open", "No limits."));
  writeSkill(root, "other", skillText("other", "Another."));
  const skills = SkillsConfigSchema.parse({ entries: { open: { env: { OPEN_TOKEN: { from_env: "HOST_TOKEN" }, MODE: "literal" } } } });
  const book = new SkillBook({ workspace, skills, config: defaultConfig(), env: { HOME: workspace, PATH: "", HOST_TOKEN: "t0k" } });
  await book.scan();
  const source = skillToolSource(book);
  const ran: string[] = [];
  const envs: (Readonly<Record<string, string>> | undefined)[] = [];
  const specs = ["file_read", "shell", "mcp__docs__search", "skill"].map((name) => ({ name, description: name, parameters: {} }));
  // the turn's tools as the approval gate hands them over: the skill tool is the real one
  const inner: ScopedTools = {
    specs: () => specs,
    async call(name, raw, context) {
      ran.push(name);
      if (name === "shell") envs.push(context.env);
      if (name === "skill") return source.get("skill")!.execute(JSON.parse(raw), context);
      return ok(`${name} ran`);
    },
  };
  const context = { sessionId: "s", workspace, signal: new AbortController().signal };
  return { book, inner, ran, envs, context };
}

test("after a skill with allowed-tools is read, only those tools (and skill) are offered and callable; another skill lifts it", async () => {
  const { book, inner, ran, context } = await fixture();
  const tools = scopeToSkills(inner, book, undefined);
  expect(tools.specs().map((s) => s.name)).toEqual(["file_read", "shell", "mcp__docs__search", "skill"]);
  expect((await tools.call("skill", '{"name":"narrow"}', context)).success).toBe(true);
  expect(tools.specs().map((s) => s.name)).toEqual(["file_read", "mcp__docs__search", "skill"]);
  const refused = await tools.call("shell", '{"command":["ls"]}', context);
  expect(refused).toMatchObject({ success: false, error: 'shell is not among the tools skill "narrow" allows (allowed-tools: file_read mcp__docs__*)' });
  expect(ran).toEqual(["skill"]);
  expect((await tools.call("file_read", '{"path":"x"}', context)).success).toBe(true);
  expect((await tools.call("skill", '{"name":"open"}', context)).success).toBe(true);
  expect(tools.specs().map((s) => s.name)).toContain("shell");
});

test("an agent's allowlist: only its skills are read, and with none of them offered the skill tool is not offered", async () => {
  const { book, inner, context } = await fixture();
  const tools = scopeToSkills(inner, book, ["open"]);
  expect((await tools.call("skill", '{"name":"other"}', context))).toMatchObject({ success: false, error: 'no skill named "other" is offered here' });
  expect((await tools.call("skill", '{"name":"open"}', context)).output).toStartWith('Skill "open"');
  expect((await book.section(["open"])).listed).toEqual(["open"]);
  const none = scopeToSkills(inner, book, ["missing"]);
  expect(none.specs().map((s) => s.name)).toEqual(["file_read", "shell", "mcp__docs__search"]);
});

test("reading a skill makes it the most recently used: it is the one kept when the prompt has room for one", async () => {
  const { workspace } = await fixture().then((f) => ({ workspace: f.book.roots()[0]!.dir.replace(/\/skills$/, "") }));
  const book = new SkillBook({
    workspace,
    skills: SkillsConfigSchema.parse({}),
    config: defaultConfig(),
    env: { HOME: workspace, PATH: "" },
    bounds: { maxSkills: 1, maxChars: 1000 },
  });
  expect((await book.section()).listed).toEqual(["narrow"]);
  await book.use("other");
  expect(await book.section()).toMatchObject({ listed: ["other"], left: ["narrow", "open"] });
  await book.use("open");
  expect((await book.section()).listed).toEqual(["open"]);
});

test("while a skill is active its [skills.entries] env reaches the shell tool's calls, and only the shell's", async () => {
  const { book, inner, envs, context } = await fixture();
  const tools = scopeToSkills(inner, book, undefined);
  await tools.call("shell", '{"command":["env"]}', context);
  await tools.call("skill", '{"name":"open"}', context);
  await tools.call("shell", '{"command":["env"]}', context);
  await tools.call("skill", '{"name":"other"}', context);
  await tools.call("shell", '{"command":["env"]}', context);
  expect(envs).toEqual([undefined, { OPEN_TOKEN: "t0k", MODE: "literal" }, undefined]);
});
