export { allows, renderBody, SkillBook, skillRoots, type SkillBookOptions } from "./book.ts";
export { SKILL_FILE, skillFolders } from "./discover.ts";
export { entryEnv, ineligibleReasons } from "./eligibility.ts";
export { PROMPT_BOUNDS, skillLine, skillsSection, type PromptBounds, type SkillsSection } from "./prompt.ts";
export { scopeToSkills, type ScopedTools } from "./scope.ts";
export { SKILL_SOURCE_ID, SKILL_TOOL_NAME, SKILL_TOOL_SPEC, skillToolSource } from "./tool.ts";
export type { ShadowedSkill, Skill, SkillFilter, SkillProblem, SkillRoot, SkillScan, SkillSource, SkillStatus } from "./types.ts";
