import { fail, ok } from "../tools/result.ts";
import type { Tool, ToolSource } from "../tools/types.ts";
import type { ToolSpec } from "../providers/types.ts";
import { renderBody, type SkillBook } from "./book.ts";
import type { SkillFilter } from "./types.ts";

export const SKILL_TOOL_NAME = "skill";

export const SKILL_TOOL_SPEC: ToolSpec = {
  name: SKILL_TOOL_NAME,
  description:
    "Read a skill's instructions by its name (the skills are listed in the system prompt). Paths in them are inside " +
    "the skill's folder; read those files with file_read.",
  parameters: {
    type: "object",
    properties: { name: { type: "string", description: "the skill's name, as listed" } },
    required: ["name"],
    additionalProperties: false,
  },
};

/** The one check of the skill tool's arguments: `{ "name": string }`. */
export function skillToolName(args: Record<string, unknown>): string | { error: string } {
  const keys = Object.keys(args);
  const name = args.name;
  if (typeof name !== "string" || name === "" || keys.length !== 1) return { error: 'skill takes {"name": "<skill name>"}' };
  return name;
}

/** Run one call of the skill tool for a turn restricted to `filter`. */
export async function readSkill(book: SkillBook, args: Record<string, unknown>, filter: SkillFilter) {
  const name = skillToolName(args);
  if (typeof name !== "string") return fail(name.error);
  const skill = await book.use(name, filter);
  if (!skill) {
    const names = book.offered(filter).map((s) => s.name);
    return fail(`no skill named "${name}" is offered here${names.length ? ` (offered: ${names.join(", ")})` : ""}`);
  }
  return ok(`Skill "${skill.name}", folder ${skill.dir}\n\n${renderBody(skill)}`);
}

const OFFERED = [SKILL_TOOL_SPEC];
const NONE: ToolSpec[] = [];

/** The id of the skill tool's source in a tool registry. */
export const SKILL_SOURCE_ID = "skills";

/** The `skill` tool, offered while some skill is (its turn's allowlist narrows it further: scope.ts). */
export function skillToolSource(book: SkillBook): ToolSource {
  const tool: Tool = {
    spec: SKILL_TOOL_SPEC,
    risk: "read",
    execute: (args) => readSkill(book, args, undefined),
  };
  return {
    id: SKILL_SOURCE_ID,
    list: () => (book.offered().length > 0 ? OFFERED : NONE),
    get: (name) => (name === SKILL_TOOL_NAME ? tool : undefined),
  };
}
