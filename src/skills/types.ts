import type { OpenClawMetadata } from "./frontmatter.ts";

/** Where a skill was found, highest precedence first: `<workspace>/skills/`, `~/.agents/skills/`, `[skills] extra_dirs`. */
export type SkillSource = "workspace" | "user" | "extra";

export interface SkillRoot {
  dir: string;
  source: SkillSource;
}

/** One loaded skill folder. */
export interface Skill {
  name: string;
  description: string;
  /** The skill's folder (its real path): `{baseDir}` in the body. */
  dir: string;
  source: SkillSource;
  /** The Markdown instructions after the frontmatter. */
  body: string;
  license?: string;
  compatibility?: string;
  /** `allowed-tools`: while the skill is active, the model may call only these (and `skill`). */
  allowedTools?: string[];
  openclaw?: OpenClawMetadata;
}

/** A folder that has a SKILL.md that could not be loaded. */
export interface SkillProblem {
  dir: string;
  source: SkillSource;
  error: string;
}

/** A skill of the same name in a lower-precedence place, not used. */
export interface ShadowedSkill {
  dir: string;
  source: SkillSource;
}

/** A skill with what decides whether it is offered. */
export interface SkillStatus {
  skill: Skill;
  /** Offered to the model (when the turn's allowlist, if any, names it). */
  eligible: boolean;
  /** Why it is not eligible (empty when it is). */
  reasons: string[];
  shadowed: ShadowedSkill[];
}

export interface SkillScan {
  /** Winners only, by name. */
  readonly skills: readonly SkillStatus[];
  readonly invalid: readonly SkillProblem[];
}

/** What a turn may use: `undefined` means every eligible skill; a list names the only ones an agent may use. */
export type SkillFilter = readonly string[] | undefined;
