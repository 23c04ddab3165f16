import { expect, test } from "bun:test";
import { SKILLS_PROMPT_MAX_CHARS, SKILLS_PROMPT_MAX_SKILLS } from "../../src/skills/limits.ts";
import { PROMPT_BOUNDS, skillLine, skillsSection } from "../../src/skills/prompt.ts";
import type { Skill } from "../../src/skills/types.ts";

function skill(name: string, description = `Does ${name}.`): Skill {
  return { name, description, dir: `/skills/${name}`, source: "workspace", body: `BODY OF ${name}` };
}

const NONE = new Map<string, number>();
const names = (n: number) => Array.from({ length: n }, (_, i) => `s${String(i).padStart(3, "0")}`);

test("the section lists names and descriptions, never bodies; no skill, no section", () => {
  const section = skillsSection([skill("b", "Second\n  one."), skill("a")], NONE);
  expect(section.text).toContain("- a: Does a.\n- b: Second one.");
  expect(section.text).toContain("call the `skill` tool with its name");
  expect(section.text).not.toContain("BODY OF");
  expect(section.left).toEqual([]);
  expect(skillsSection([], NONE)).toEqual({ text: "", listed: [], left: [] });
});

test(`${SKILLS_PROMPT_MAX_SKILLS} skills are all listed; one more leaves the least recently used out with a note`, () => {
  const at = names(SKILLS_PROMPT_MAX_SKILLS).map((n) => skill(n));
  const full = skillsSection(at, NONE, PROMPT_BOUNDS);
  expect(full.listed.length).toBe(SKILLS_PROMPT_MAX_SKILLS);
  expect(full.text).not.toContain("not listed");

  const past = names(SKILLS_PROMPT_MAX_SKILLS + 1).map((n) => skill(n));
  // every skill but s000 was used, s000 longest ago of all (never): it is the one left out
  const used = new Map(past.slice(1).map((s, i) => [s.name, i + 1]));
  const cut = skillsSection(past, used, PROMPT_BOUNDS);
  expect(cut.listed.length).toBe(SKILLS_PROMPT_MAX_SKILLS);
  expect(cut.left).toEqual(["s000"]);
  expect(cut.text).toContain("(1 more skill is not listed for room, the least recently used; the `skill` tool still reads one by its exact name.)");
  expect(cut.text).not.toContain("- s000:");
});

test(`descriptions filling exactly ${SKILLS_PROMPT_MAX_CHARS} characters are listed; one character more leaves one out`, () => {
  const count = 16;
  const width = SKILLS_PROMPT_MAX_CHARS / count;
  const make = (extra: number) =>
    names(count).map((n, i) => {
      const prefix = skillLine({ name: n, description: "" }).length;
      return skill(n, "d".repeat(width - prefix + (i === count - 1 ? extra : 0)));
    });
  const at = make(0);
  expect(at.reduce((sum, s) => sum + skillLine(s).length, 0)).toBe(SKILLS_PROMPT_MAX_CHARS);
  expect(skillsSection(at, NONE).left).toEqual([]);
  const past = make(1);
  expect(skillsSection(past, NONE).left).toEqual([names(count).at(-1)!]);
});

test("the most recently used skills are kept first when not all fit", () => {
  const all = ["a", "b", "c", "d"].map((n) => skill(n));
  const used = new Map([["d", 3], ["a", 2]]);
  const section = skillsSection(all, used, { maxSkills: 2, maxChars: 10_000 });
  expect(section.listed).toEqual(["a", "d"]);
  expect(section.left).toEqual(["b", "c"]);
  expect(section.text).toContain("2 more skills are not listed");
});
