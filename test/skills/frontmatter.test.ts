import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_NAME_MAX_CHARS } from "../../src/config/skills.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { parseSkillFile } from "../../src/skills/frontmatter.ts";
import { SKILL_DESCRIPTION_MAX_CHARS, SKILL_FILE_MAX_BYTES } from "../../src/skills/limits.ts";
import { PUBLISHED, skillText } from "./helpers.ts";

function parseError(text: string, folder: string): string {
  try {
    parseSkillFile(text, folder, "SKILL.md");
  } catch (error) {
    expect(isPrxError(error, "SKILL_INVALID")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

test("the published skills parse as they are: name, description, license, body after the frontmatter", () => {
  for (const name of ["brand-guidelines", "internal-comms", "webapp-testing"]) {
    const text = readFileSync(join(PUBLISHED, name, "SKILL.md"), "utf8");
    const { frontmatter, body } = parseSkillFile(text, name, name);
    expect(frontmatter.name).toBe(name);
    expect(frontmatter.description.length).toBeGreaterThan(20);
    expect(frontmatter.license).toBe("Complete terms in LICENSE.txt");
    expect(body.startsWith("---")).toBe(false);
    expect(body).toContain("#");
  }
});

test("a name of 64 characters passes and one of 65 fails; it must equal the folder's name and follow the rule", () => {
  const at = "a".repeat(SKILL_NAME_MAX_CHARS);
  expect(parseSkillFile(skillText(at, "d"), at, "x").frontmatter.name).toBe(at);
  const past = "a".repeat(SKILL_NAME_MAX_CHARS + 1);
  expect(parseError(skillText(past, "d"), past)).toContain("frontmatter name");
  expect(parseError(skillText("other", "d"), "mine")).toContain('differs from its folder\'s name "mine"');
  for (const bad of ["Upper", "-lead", "trail-", "dou--ble", "under_score"]) expect(parseError(skillText(bad, "d"), bad)).toContain("frontmatter name");
});

test("a description of 1024 characters passes, 1025 fails, an empty one fails", () => {
  const at = "d".repeat(SKILL_DESCRIPTION_MAX_CHARS);
  expect(parseSkillFile(skillText("s", at), "s", "x").frontmatter.description).toBe(at);
  expect(parseError(skillText("s", "d".repeat(SKILL_DESCRIPTION_MAX_CHARS + 1)), "s")).toContain("frontmatter description");
  expect(parseError(skillText("s", ""), "s")).toContain("frontmatter description");
});

test("a SKILL.md of 256 KiB loads and one byte more is refused", () => {
  const head = skillText("big", "a big one", "");
  const at = head + "x".repeat(SKILL_FILE_MAX_BYTES - Buffer.byteLength(head));
  expect(Buffer.byteLength(at)).toBe(SKILL_FILE_MAX_BYTES);
  expect(parseSkillFile(at, "big", "x").body.length).toBe(SKILL_FILE_MAX_BYTES - Buffer.byteLength(head));
  expect(parseError(at + "x", "big")).toContain(`over ${SKILL_FILE_MAX_BYTES}`);
});

test("unknown keys are kept and ignored; allowed-tools is split; metadata.openclaw is read; bad YAML and duplicate keys are refused", () => {
  const text = skillText("s", "d", "body", 'version: 2\nallowed-tools: file_read  shell\nmetadata: {"openclaw": {"os": ["linux"], "requires": {"bins": ["git"], "anyBins": ["a", "b"], "env": ["K"], "config": ["tools.shell_enabled"]}, "emoji": "x"}}\n');
  const { frontmatter } = parseSkillFile(text, "s", "x");
  expect((frontmatter as Record<string, unknown>).version).toBe(2);
  expect(frontmatter["allowed-tools"]).toEqual(["file_read", "shell"]);
  expect(frontmatter.metadata?.openclaw?.requires).toEqual({ bins: ["git"], anyBins: ["a", "b"], env: ["K"], config: ["tools.shell_enabled"] });
  expect(parseError("---\nname: s\ndescription: [unclosed\n---\n", "s")).toContain("not valid YAML");
  expect(parseError("---\nname: s\nname: s\ndescription: d\n---\n", "s")).toContain("not valid YAML");
  expect(parseError("no frontmatter here", "s")).toContain("no frontmatter");
  expect(parseError("---\n- a list\n---\n", "s")).toContain("not a mapping");
  expect(parseError(skillText("s", "d", "", 'metadata: {"openclaw": {"os": "linux"}}\n'), "s")).toContain("metadata.openclaw.os");
});

test("YAML aliases are bounded: a billion-laughs frontmatter is refused, not expanded", () => {
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(", ")}]`);
  const text = `---\nname: s\ndescription: d\n${lines.join("\n")}\n---\n`;
  expect(parseError(text, "s")).toContain("alias");
});
