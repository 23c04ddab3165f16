import { SKILLS_PROMPT_MAX_CHARS, SKILLS_PROMPT_MAX_SKILLS } from "./limits.ts";
import type { Skill } from "./types.ts";

export interface PromptBounds {
  maxSkills: number;
  maxChars: number;
}

export const PROMPT_BOUNDS: PromptBounds = { maxSkills: SKILLS_PROMPT_MAX_SKILLS, maxChars: SKILLS_PROMPT_MAX_CHARS };

const HEADER =
  "## Skills\n" +
  "Skills are folders of instructions for particular tasks. When a task matches a skill's description, first call " +
  "the `skill` tool with its name to read its instructions; read the files they mention with `file_read`.";

/** One skill's line: its name and its description on one line. */
export function skillLine(skill: Pick<Skill, "name" | "description">): string {
  return `- ${skill.name}: ${skill.description.replace(/\s+/g, " ").trim()}`;
}

export interface SkillsSection {
  /** The system prompt's skills section ("" when no skill is offered). */
  text: string;
  readonly listed: readonly string[];
  /** Offered but left out for room (the least recently used). */
  readonly left: readonly string[];
}

/** The section while no skill is offered (at every turn of most workspaces): one shared, frozen answer. */
const NO_SECTION: SkillsSection = Object.freeze({ text: "", listed: Object.freeze([]), left: Object.freeze([]) });

/**
 * The names and descriptions of the offered skills, never their bodies. Most recently used first until
 * `maxSkills` lines or `maxChars` characters of lines; the rest are left out with a note. Listed by name.
 * `lastUsed`: a rising number per skill read (higher is more recent; absent: never).
 */
export function skillsSection(offered: readonly Skill[], lastUsed: ReadonlyMap<string, number>, bounds: PromptBounds = PROMPT_BOUNDS): SkillsSection {
  if (offered.length === 0) return NO_SECTION;
  const byRecency = [...offered].sort(
    (a, b) => (lastUsed.get(b.name) ?? 0) - (lastUsed.get(a.name) ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const kept: { name: string; line: string }[] = [];
  const left: string[] = [];
  let chars = 0;
  for (const skill of byRecency) {
    const line = skillLine(skill);
    const fits = left.length === 0 && kept.length < bounds.maxSkills && chars + line.length <= bounds.maxChars;
    if (!fits) {
      left.push(skill.name);
      continue;
    }
    chars += line.length;
    kept.push({ name: skill.name, line });
  }
  kept.sort((a, b) => (a.name < b.name ? -1 : 1));
  let text = `${HEADER}\n${kept.map((k) => k.line).join("\n")}`;
  if (left.length > 0) {
    text +=
      `\n(${left.length} more skill${left.length === 1 ? " is" : "s are"} not listed for room, the least recently used; ` +
      "the `skill` tool still reads one by its exact name.)";
  }
  return { text, listed: kept.map((k) => k.name), left };
}
