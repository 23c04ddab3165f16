import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../src/core/errors.ts";
import { installSkill, removeSkill } from "../../src/skills/install.ts";
import { scaffoldSkill } from "../../src/skills/scaffold.ts";
import { parseSkillFile } from "../../src/skills/frontmatter.ts";
import { PUBLISHED, skillText, tempDirs, writeSkill } from "./helpers.ts";

const temp = tempDirs("prx-skills-install-");

async function refusal(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a refusal");
}

/** A .zip made by Python's zipfile (stored as `zip -r` would store the folder, with its top folder). */
function zipOf(dir: string, into: string, extra: Record<string, string> = {}): string {
  const script =
    "import os,sys,zipfile\n" +
    "src,out=sys.argv[1],sys.argv[2]\n" +
    "z=zipfile.ZipFile(out,'w',zipfile.ZIP_DEFLATED)\n" +
    "base=os.path.dirname(src)\n" +
    "for r,ds,fs in os.walk(src):\n" +
    "  for f in fs:\n" +
    "    p=os.path.join(r,f); z.write(p, os.path.relpath(p, base))\n" +
    `for k,v in ${JSON.stringify(extra)}.items(): z.writestr(k, v)\n` +
    "z.close()\n";
  const out = join(into, "skill.zip");
  const done = Bun.spawnSync(["python3", "-c", script, dir, out]);
  if (done.exitCode !== 0) throw new Error(done.stderr.toString());
  return out;
}

test("a published skill folder installs as it is, scripts keep their execute bit; not over itself without --force", async () => {
  const skills = join(temp(), "skills");
  const source = join(PUBLISHED, "webapp-testing");
  const done = await installSkill(source, skills);
  expect(done).toMatchObject({ name: "webapp-testing", dir: join(skills, "webapp-testing"), files: 6, replaced: false });
  expect(readFileSync(join(done.dir, "SKILL.md"), "utf8")).toBe(readFileSync(join(source, "SKILL.md"), "utf8"));
  expect(statSync(join(done.dir, "scripts", "with_server.py")).mode & 0o111).not.toBe(0);
  const again = await refusal(() => installSkill(source, skills));
  expect(isPrxError(again, "CONFLICT")).toBe(true);
  expect(again.message).toContain("already installed");
  expect((await installSkill(source, skills, { force: true })).replaced).toBe(true);
  expect(readdirSync(skills)).toEqual(["webapp-testing"]);
});

test("a .tar.gz with a top folder and a .zip install the same skill", async () => {
  const root = temp();
  const tgz = join(root, "skill.tar.gz");
  const made = Bun.spawnSync(["tar", "czf", tgz, "-C", PUBLISHED, "internal-comms"]);
  expect(made.exitCode).toBe(0);
  const fromTar = await installSkill(tgz, join(root, "a"));
  expect(fromTar).toMatchObject({ name: "internal-comms", files: 6 });
  expect(readFileSync(join(fromTar.dir, "examples", "faq-answers.md"), "utf8")).toBe(readFileSync(join(PUBLISHED, "internal-comms", "examples", "faq-answers.md"), "utf8"));
  const fromZip = await installSkill(zipOf(join(PUBLISHED, "internal-comms"), root), join(root, "b"));
  expect(fromZip).toMatchObject({ name: "internal-comms", files: 6 });
  expect(readFileSync(join(fromZip.dir, "SKILL.md"), "utf8")).toBe(readFileSync(join(PUBLISHED, "internal-comms", "SKILL.md"), "utf8"));
});

test("nothing lands when the skill is not valid whole: a bad SKILL.md, a path out of the folder, a link", async () => {
  const root = temp();
  const skills = join(root, "skills");
  const bad = writeSkill(join(root, "src"), "bad-one", skillText("other", "d"));
  expect((await refusal(() => installSkill(bad, skills))).message).toContain("differs from its folder's name");
  const good = writeSkill(join(root, "src"), "good-one");
  const escaping = zipOf(good, root, { "good-one/../../evil.txt": "x" });
  expect((await refusal(() => installSkill(escaping, skills))).message).toContain('".." segment');
  const linked = writeSkill(join(root, "src"), "linked");
  symlinkSync("/etc/passwd", join(linked, "passwd"));
  expect((await refusal(() => installSkill(linked, skills))).message).toContain("passwd is a symbolic link");
  const none = join(root, "src", "no-skill");
  mkdirSync(none);
  writeFileSync(join(none, "README.md"), "x");
  expect((await refusal(() => installSkill(none, skills))).message).toContain("no SKILL.md");
  expect(existsSync(join(root, "evil.txt"))).toBe(false);
  expect(existsSync(skills) ? readdirSync(skills) : []).toEqual([]);
});

test("new writes a SKILL.md that loads as written; remove deletes a workspace skill and refuses other names", async () => {
  const skills = join(temp(), "skills");
  const file = scaffoldSkill(skills, "my-skill");
  expect(parseSkillFile(readFileSync(file, "utf8"), "my-skill", file).frontmatter.name).toBe("my-skill");
  expect(isPrxError(await refusal(async () => scaffoldSkill(skills, "my-skill")), "CONFLICT")).toBe(true);
  expect(isPrxError(await refusal(async () => scaffoldSkill(skills, "Bad Name")), "USAGE")).toBe(true);
  expect(removeSkill(skills, "my-skill")).toBe(join(skills, "my-skill"));
  expect(existsSync(join(skills, "my-skill"))).toBe(false);
  for (const name of ["my-skill", "..", "../x", ".hidden"]) expect(isPrxError(await refusal(async () => removeSkill(skills, name)), "NOT_FOUND")).toBe(true);
});
