/** Bounds of Agent Skills (each tested at the limit and one past). */

/** Most bytes of one SKILL.md (frontmatter and body); a larger one is not loaded. */
export const SKILL_FILE_MAX_BYTES = 256 * 1024;
export { SKILL_NAME_MAX_CHARS } from "../config/skill-name.ts";
/** `description`: 1-1024 characters (the Agent Skills format). */
export const SKILL_DESCRIPTION_MAX_CHARS = 1024;
/** Most skills whose name and description go into one system prompt; past it the least recently used are left out. */
export const SKILLS_PROMPT_MAX_SKILLS = 64;
/** Most characters the skills' lines (name and description) take in one system prompt. */
export const SKILLS_PROMPT_MAX_CHARS = 16_000;
/** Most folders looked at in one skills directory (a directory with more is read up to this many, by name). */
export const SKILLS_DIR_MAX_ENTRIES = 1000;
/** Most files, and bytes in all, of one skill being installed (folder or archive, unpacked). */
export const SKILL_INSTALL_MAX_FILES = 2000;
export const SKILL_INSTALL_MAX_BYTES = 64 * 1024 * 1024;
/**
 * How old the last look at the skill places may be when a turn starts (ms). Each look stats every place and every
 * skill folder's SKILL.md, and a busy gateway starts many turns a second; once a look is this old the next turn looks
 * again, so a skill folder made or edited is offered from the first turn starting 2 s later at most (less than it
 * takes to save a SKILL.md and then write the message that wants it). A reload, `prx skills`, GET /api/skills and
 * the skill tool asked for a skill it does not know look at once.
 */
export const SKILLS_RESCAN_AFTER_MS = 2_000;
