import { expect, test } from "bun:test";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig, type Config } from "../../src/config/schema.ts";
import { SkillsConfigSchema } from "../../src/config/skills.ts";
import { SkillBook, skillToolSource, type SkillBookOptions } from "../../src/skills/index.ts";
import { SKILL_FILE_MAX_BYTES, SKILLS_RESCAN_AFTER_MS } from "../../src/skills/limits.ts";
import { PUBLISHED, skillText, tempDirs, writeSkill } from "./helpers.ts";

const temp = tempDirs("prx-skills-book-");

interface Setup {
  workspace: string;
  home: string;
  extra: string;
  book(skills?: Record<string, unknown>, more?: { env?: Record<string, string>; config?: Config; onPath?: (p: string) => boolean }): SkillBook;
}

function setup(): Setup {
  const root = temp();
  const workspace = join(root, "ws");
  const home = join(root, "home");
  const extra = join(root, "extra");
  return {
    workspace,
    home,
    extra,
    book(skills = {}, more = {}) {
      const parsed = SkillsConfigSchema.parse({ extra_dirs: [extra], ...skills });
      const config = more.config ?? defaultConfig();
      return new SkillBook({
        workspace,
        skills: parsed,
        config: { ...config, skills: parsed },
        env: { HOME: home, PATH: "/nonexistent", ...more.env },
        platform: "linux",
        onPath: more.onPath ?? ((program) => program === "git"),
      });
    },
  };
}

test("skills of a published collection, copied as they are, are found with their names and descriptions", async () => {
  const s = setup();
  cpSync(PUBLISHED, join(s.workspace, "skills"), { recursive: true });
  const scan = await s.book().scan();
  expect(scan.invalid).toEqual([]);
  expect(scan.skills.map((x) => [x.skill.name, x.eligible])).toEqual([
    ["brand-guidelines", true],
    ["internal-comms", true],
    ["webapp-testing", true],
  ]);
  expect(scan.skills[2]!.skill.description).toStartWith("Toolkit for interacting with and testing local web applications");
});

test("the workspace's skill wins over ~/.agents/skills, which wins over extra_dirs; the losers are listed as shadowed", async () => {
  const s = setup();
  const mine = writeSkill(join(s.workspace, "skills"), "same", skillText("same", "workspace one"));
  const user = writeSkill(join(s.home, ".agents", "skills"), "same", skillText("same", "user one"));
  const extra = writeSkill(s.extra, "same", skillText("same", "extra one"));
  writeSkill(s.extra, "only-extra");
  const scan = await s.book().scan();
  const same = scan.skills.find((x) => x.skill.name === "same")!;
  expect(same.skill).toMatchObject({ description: "workspace one", source: "workspace", dir: mine });
  expect(same.shadowed).toEqual([
    { dir: user, source: "user" },
    { dir: extra, source: "extra" },
  ]);
  expect(scan.skills.find((x) => x.skill.name === "only-extra")!.skill.source).toBe("extra");
});

test("a folder whose SKILL.md cannot load is reported with why; the other skills still load; a folder without SKILL.md is no skill", async () => {
  const s = setup();
  const root = join(s.workspace, "skills");
  writeSkill(root, "good");
  writeSkill(root, "wrong-name", skillText("other-name", "d"));
  const big = writeSkill(root, "big");
  writeFileSync(join(big, "SKILL.md"), "x".repeat(SKILL_FILE_MAX_BYTES + 1));
  writeSkill(root, "not-a-skill", "");
  rmSync(join(root, "not-a-skill", "SKILL.md"));
  const scan = await s.book().scan();
  expect(scan.skills.map((x) => x.skill.name)).toEqual(["good"]);
  expect(scan.invalid.map((p) => p.dir.split("/").pop())).toEqual(["big", "wrong-name"]);
  expect(scan.invalid[0]!.error).toContain(`over ${SKILL_FILE_MAX_BYTES}`);
  expect(scan.invalid[1]!.error).toContain("differs from its folder's name");
});

test("OpenClaw gating: os, bins, anyBins, env (set, or supplied by [skills.entries]), config keys, enabled = false, always", async () => {
  const s = setup();
  const root = join(s.workspace, "skills");
  const gated = (name: string, openclaw: unknown) => writeSkill(root, name, skillText(name, name, "", `metadata: ${JSON.stringify({ openclaw })}\n`));
  gated("on-mac", { os: ["darwin", "win32"] });
  gated("on-linux", { os: ["linux"] });
  gated("needs-bins", { requires: { bins: ["git", "no-such-program"] } });
  gated("any-bin", { requires: { anyBins: ["nope", "git"] } });
  gated("no-any-bin", { requires: { anyBins: ["nope", "nada"] } });
  gated("needs-env", { requires: { env: ["SET_VAR", "UNSET_VAR"] } });
  gated("env-by-entry", { requires: { env: ["GIVEN_VAR", "FROM_VAR"] } });
  gated("needs-config", { requires: { config: ["tools.shell_enabled"] } });
  gated("always", { always: true, os: ["darwin"], requires: { bins: ["nope"] } });
  writeSkill(root, "switched-off");
  const book = s.book(
    {
      entries: {
        "env-by-entry": { env: { GIVEN_VAR: "literal", FROM_VAR: { from_env: "HOST_VAR" } } },
        "switched-off": { enabled: false },
      },
    },
    { env: { SET_VAR: "1", HOST_VAR: "secret" } },
  );
  const scan = await book.scan();
  const reasons = Object.fromEntries(scan.skills.map((x) => [x.skill.name, x.reasons]));
  expect(reasons["on-mac"]).toEqual(["runs on darwin, win32, not linux (metadata.openclaw.os)"]);
  expect(reasons["on-linux"]).toEqual([]);
  expect(reasons["needs-bins"]).toEqual(["needs no-such-program on PATH (requires.bins)"]);
  expect(reasons["any-bin"]).toEqual([]);
  expect(reasons["no-any-bin"]).toEqual(["needs one of nope, nada on PATH (requires.anyBins)"]);
  expect(reasons["needs-env"]).toEqual(["needs environment variable UNSET_VAR set, or in [skills.entries.needs-env] env (requires.env)"]);
  expect(reasons["env-by-entry"]).toEqual([]);
  expect(reasons["needs-config"]).toEqual(["needs config tools.shell_enabled set to a true value (requires.config)"]);
  expect(reasons.always).toEqual([]);
  expect(reasons["switched-off"]).toEqual(["disabled by [skills.entries.switched-off] enabled = false"]);
  expect(book.offered().map((x) => x.name)).toEqual(["always", "any-bin", "env-by-entry", "on-linux"]);

  // a from_env whose variable is unset supplies nothing; a config key set to true passes
  const config = defaultConfig();
  config.tools.shell_enabled = true;
  const other = s.book({ entries: { "env-by-entry": { env: { GIVEN_VAR: "x", FROM_VAR: { from_env: "HOST_VAR" } } } } }, { config });
  const again = Object.fromEntries((await other.scan()).skills.map((x) => [x.skill.name, x.reasons]));
  expect(again["env-by-entry"]).toEqual(["needs environment variable FROM_VAR set, or in [skills.entries.env-by-entry] env (requires.env)"]);
  expect(again["needs-config"]).toEqual([]);
});

test("the skill tool returns an offered skill's body with {baseDir} replaced by its folder; an unknown or gated one is refused", async () => {
  const s = setup();
  const dir = writeSkill(
    join(s.workspace, "skills"),
    "runner",
    skillText("runner", "Runs the hello script.", "Run `sh {baseDir}/scripts/hello.sh`; notes in {baseDir}/references/notes.md.\n"),
    { "scripts/hello.sh": "echo hello\n" },
  );
  writeSkill(join(s.workspace, "skills"), "gated", skillText("gated", "d", "", 'metadata: {"openclaw": {"os": ["darwin"]}}\n'));
  const book = s.book();
  await book.scan();
  const tool = skillToolSource(book).get("skill")!;
  const ctx = { sessionId: "s", workspace: s.workspace, signal: new AbortController().signal };
  const read = await tool.execute({ name: "runner" }, ctx);
  expect(read.success).toBe(true);
  expect(read.output).toContain(`Run \`sh ${dir}/scripts/hello.sh\`; notes in ${dir}/references/notes.md.`);
  expect(read.output).not.toContain("{baseDir}");
  const gated = await tool.execute({ name: "gated" }, ctx);
  expect(gated).toMatchObject({ success: false, error: 'no skill named "gated" is offered here (offered: runner)' });
  expect((await tool.execute({ name: 5 }, ctx)).error).toBe('skill takes {"name": "<skill name>"}');
  expect(book.readableDirs()).toEqual([dir]);
});

test("a skill added after the last scan is found by the skill tool without waiting for the next turn", async () => {
  const s = setup();
  const book = s.book();
  await book.scan();
  expect(skillToolSource(book).list()).toEqual([]);
  writeSkill(join(s.workspace, "skills"), "late");
  expect(await book.use("late")).toMatchObject({ name: "late" });
  expect(skillToolSource(book).list().map((t) => t.name)).toEqual(["skill"]);
});

test("[skills] enabled = false: nothing is found or offered", async () => {
  const s = setup();
  writeSkill(join(s.workspace, "skills"), "one");
  const book = s.book({ enabled: false });
  expect((await book.scan()).skills).toEqual([]);
  expect((await book.section()).text).toBe("");
});

test("scan looks at the places at once: a skills folder made after one is found by the next, a reload's extra_dirs and a new HOME too", async () => {
  const s = setup();
  // the environment as the host holds it (process.env): read at each scan, not copied
  const env: Record<string, string> = { HOME: s.home, PATH: "/nonexistent" };
  const skills = SkillsConfigSchema.parse({});
  const book = new SkillBook({ workspace: s.workspace, skills, config: { ...defaultConfig(), skills }, env, platform: "linux" });
  expect((await book.scan()).skills).toEqual([]);
  writeSkill(join(s.workspace, "skills"), "added-later");
  expect((await book.scan()).skills.map((x) => x.skill.name)).toEqual(["added-later"]);

  const elsewhere = join(s.extra, "..", "elsewhere");
  writeSkill(elsewhere, "from-reload");
  const reloaded = SkillsConfigSchema.parse({ extra_dirs: [elsewhere] });
  book.configure(reloaded, { ...defaultConfig(), skills: reloaded });
  expect((await book.scan()).skills.map((x) => x.skill.name)).toEqual(["added-later", "from-reload"]);

  const otherHome = join(s.home, "..", "other-home");
  writeSkill(join(otherHome, ".agents", "skills"), "of-other-home");
  env.HOME = otherHome;
  expect((await book.scan()).skills.map((x) => x.skill.name)).toEqual(["added-later", "of-other-home", "from-reload"]);
});

/** A book over `s` whose clock the test moves; `env` is held as the host holds process.env (read, not copied). */
function clocked(s: Setup, env: Record<string, string>, more: Partial<SkillBookOptions> = {}) {
  const clock = { now: 1_000_000 };
  const skills = SkillsConfigSchema.parse({});
  const book = new SkillBook({ workspace: s.workspace, skills, config: { ...defaultConfig(), skills }, env, platform: "linux", now: () => clock.now, ...more });
  const offered = async () => {
    await book.section();
    return book.offered().map((skill) => skill.name);
  };
  return { clock, book, offered };
}

test("a turn's section answers from the last look while it is SKILLS_RESCAN_AFTER_MS old; one past, a new skill folder is found", async () => {
  const s = setup();
  const { clock, offered } = clocked(s, { HOME: s.home, PATH: "/nonexistent" });
  expect(await offered()).toEqual([]);
  writeSkill(join(s.workspace, "skills"), "made-later");
  clock.now += SKILLS_RESCAN_AFTER_MS;
  expect(await offered()).toEqual([]);
  clock.now += 1;
  expect(await offered()).toEqual(["made-later"]);
});

test("an edited SKILL.md is read by the first section past the window, not before", async () => {
  const s = setup();
  writeSkill(join(s.workspace, "skills"), "edited", skillText("edited", "Before."));
  const { clock, book } = clocked(s, { HOME: s.home, PATH: "/nonexistent" });
  expect((await book.section()).text).toContain("Before.");
  writeFileSync(join(s.workspace, "skills", "edited", "SKILL.md"), skillText("edited", "After, a longer description."));
  clock.now += SKILLS_RESCAN_AFTER_MS;
  expect((await book.section()).text).toContain("Before.");
  clock.now += 1;
  expect((await book.section()).text).toContain("After, a longer description.");
});

test("within the window a reload's extra_dirs, a new HOME, scan (prx skills, GET /api/skills) and the skill tool look at once", async () => {
  const s = setup();
  const env: Record<string, string> = { HOME: s.home, PATH: "/nonexistent" };
  const { book, offered } = clocked(s, env);
  expect(await offered()).toEqual([]);

  const elsewhere = join(s.extra, "..", "elsewhere");
  writeSkill(elsewhere, "from-reload");
  const reloaded = SkillsConfigSchema.parse({ extra_dirs: [elsewhere] });
  book.configure(reloaded, { ...defaultConfig(), skills: reloaded });
  expect(await offered()).toEqual(["from-reload"]);

  const otherHome = join(s.home, "..", "other-home");
  writeSkill(join(otherHome, ".agents", "skills"), "of-other-home");
  env.HOME = otherHome;
  expect(await offered()).toEqual(["of-other-home", "from-reload"]);

  // what `prx skills new` writes: scan finds it, and the turns after it answer from that look
  const { scaffoldSkill } = await import("../../src/skills/scaffold.ts");
  scaffoldSkill(join(s.workspace, "skills"), "scaffolded");
  expect(await offered()).toEqual(["of-other-home", "from-reload"]);
  expect((await book.scan()).skills.map((x) => x.skill.name)).toEqual(["scaffolded", "of-other-home", "from-reload"]);
  expect(await offered()).toEqual(["scaffolded", "of-other-home", "from-reload"]);

  // a skill the tool is asked for by name and the last look lacks is looked for at once
  writeSkill(join(s.workspace, "skills"), "asked-for");
  expect(await offered()).not.toContain("asked-for");
  expect(await book.use("asked-for")).toMatchObject({ name: "asked-for" });
  expect(await offered()).toContain("asked-for");
});

test("turns that start while a look is under way wait for it rather than look again", async () => {
  const s = setup();
  writeSkill(join(s.workspace, "skills"), "needs-git", skillText("needs-git", "Git.", "# g\n", "metadata:\n  openclaw:\n    requires:\n      bins: [git]\n"));
  const looks: string[] = [];
  // asked once per program per look: it counts the looks
  const { clock, book } = clocked(s, { HOME: s.home }, { onPath: (program) => (looks.push(program), true) });
  await Promise.all([book.section(), book.section(), book.section()]);
  expect(looks).toEqual(["git"]);
  clock.now += SKILLS_RESCAN_AFTER_MS + 1;
  await Promise.all([book.section(), book.section()]);
  expect(looks).toEqual(["git", "git"]);
  expect(book.offered().map((skill) => skill.name)).toEqual(["needs-git"]);
});

test("a reload while a look is under way: the turns after it look with the new configuration, not the old look's answer", async () => {
  const s = setup();
  writeSkill(join(s.workspace, "skills"), "one");
  const elsewhere = join(s.extra, "..", "elsewhere");
  writeSkill(elsewhere, "from-reload");
  const reloaded = SkillsConfigSchema.parse({ extra_dirs: [elsewhere] });
  // a turn that starts before the old look ends, and one that starts after it
  for (const startsBeforeTheOldLookEnds of [true, false]) {
    const { book } = clocked(s, { HOME: s.home, PATH: "/nonexistent" });
    const old = book.section();
    book.configure(reloaded, { ...defaultConfig(), skills: reloaded });
    const next = startsBeforeTheOldLookEnds ? book.section() : old.then(() => book.section());
    await old;
    await next;
    expect(book.offered().map((skill) => skill.name)).toEqual(["one", "from-reload"]);
  }
});

test("between two looks a turn's section follows the skill read last and the turn's allowlist", async () => {
  const s = setup();
  writeSkill(join(s.workspace, "skills"), "first");
  writeSkill(join(s.workspace, "skills"), "second");
  const { book } = clocked(s, { HOME: s.home }, { bounds: { maxSkills: 1, maxChars: 10_000 } });
  expect((await book.section()).listed).toEqual(["first"]);
  expect((await book.section()).listed).toEqual(["first"]);
  await book.use("second");
  expect((await book.section()).listed).toEqual(["second"]);
  expect((await book.section(["first"])).listed).toEqual(["first"]);
  expect((await book.section([])).listed).toEqual([]);
  expect((await book.section()).listed).toEqual(["second"]);
  expect(book.offered().map((skill) => skill.name)).toEqual(["first", "second"]);
  expect(book.offered(["second"]).map((skill) => skill.name)).toEqual(["second"]);
});
