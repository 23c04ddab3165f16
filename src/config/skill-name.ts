/**
 * A skill's name: lowercase letters, digits and single hyphens, not at either end (the Agent Skills format). Apart
 * from the `[skills]` schema (skills.ts) so that the skills at run time read these bounds without loading zod.
 */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX_CHARS = 64;
export const SKILL_NAME_RULE = `1-${SKILL_NAME_MAX_CHARS} lowercase letters, digits and single hyphens, not at either end`;
