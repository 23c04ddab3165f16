import { z } from "zod";
import { SKILL_NAME_MAX_CHARS, SKILL_NAME_PATTERN, SKILL_NAME_RULE } from "./skill-name.ts";

export { SKILL_NAME_MAX_CHARS, SKILL_NAME_PATTERN, SKILL_NAME_RULE };
/** Most directories `[skills] extra_dirs` may name. */
export const SKILLS_MAX_EXTRA_DIRS = 32;

const skillName = z.string().max(SKILL_NAME_MAX_CHARS).regex(SKILL_NAME_PATTERN, SKILL_NAME_RULE);

/** `[skills.entries.<name>]`: per-skill settings, as OpenClaw's `skills.entries`. */
export const SkillEntrySchema = z.strictObject({
  enabled: z.boolean().default(true).describe("false: the skill is never offered"),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable name"),
      z.union([z.string(), z.strictObject({ from_env: z.string().min(1).describe("the variable of prx's environment to take it from") })]),
    )
    .default({})
    .describe('variables the skill needs (its requires.env): a literal, or { from_env = "VAR" }'),
});

/** `[skills]`: Agent Skills (SKILL.md folders) beside `<workspace>/skills/` and `~/.agents/skills/`. */
export const SkillsConfigSchema = z.strictObject({
  enabled: z.boolean().default(true).describe("false: no skill is offered and the skill tool is not there"),
  extra_dirs: z
    .array(z.string().min(1))
    .max(SKILLS_MAX_EXTRA_DIRS)
    .default([])
    .describe("more directories of skill folders, after the workspace's and ~/.agents/skills (~/ is the home directory)"),
  entries: z.record(skillName, SkillEntrySchema).default({}).describe("[skills.entries.<name>]: enabled, env"),
});

export type SkillsConfig = z.infer<typeof SkillsConfigSchema>;
export type SkillEntryConfig = z.infer<typeof SkillEntrySchema>;
