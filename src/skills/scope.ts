import { fail } from "../tools/result.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import type { ToolSpec } from "../providers/types.ts";
import { allows, type SkillBook } from "./book.ts";
import { SKILL_TOOL_NAME, skillToolName } from "./tool.ts";
import type { SkillFilter } from "./types.ts";

/** The built-in tool a skill's scripts run through. */
const SHELL_TOOL_NAME = "shell";

/** The tools of one turn as the turn loop calls them. */
export interface ScopedTools {
  specs(): ToolSpec[];
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
}

/** An `allowed-tools` entry matches a tool's name exactly, or as a prefix before a trailing `*`. */
function matches(allowed: readonly string[], name: string): boolean {
  return allowed.some((entry) => (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : entry === name));
}

function requestedName(raw: string): string | undefined {
  try {
    const args: unknown = JSON.parse(raw);
    if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
    const name = skillToolName(args as Record<string, unknown>);
    return typeof name === "string" ? name : undefined;
  } catch {
    // not JSON: the registry's own check answers the model with the reason
    return undefined;
  }
}

/**
 * A turn's tools as skills narrow them. `filter` (an agent's skills): the `skill` tool reads only those, and is not
 * offered when none of them is. Once the model has read a skill with `allowed-tools`, it is offered and may call only
 * those tools (and `skill`) for the rest of the turn: a skill narrows what the model may call, never widens it
 * (every call still passes the approval gate under it). While a skill is active, its `[skills.entries.<name>] env`
 * reaches the shell tool's child environment (the owner's configuration, not the skill's).
 */
export function scopeToSkills(tools: ScopedTools, book: SkillBook, filter: SkillFilter): ScopedTools {
  /** The skill read last this turn; `allowed`: its allowed-tools, null when it has none. */
  let active: { name: string; allowed: readonly string[] | null; env: Record<string, string> } | null = null;
  const permitted = (name: string) => name === SKILL_TOOL_NAME || !active?.allowed || matches(active.allowed, name);
  return {
    specs() {
      const all = tools.specs();
      const noSkills = filter !== undefined && book.offered(filter).length === 0;
      if (!active?.allowed && !noSkills) return all;
      return all.filter((spec) => (spec.name === SKILL_TOOL_NAME ? !noSkills : permitted(spec.name)));
    },
    async call(name, raw, context) {
      if (!permitted(name)) {
        return fail(`${name} is not among the tools skill "${active!.name}" allows (allowed-tools: ${active!.allowed!.join(" ")})`);
      }
      if (name === SHELL_TOOL_NAME && active && Object.keys(active.env).length > 0) {
        return tools.call(name, raw, { ...context, env: { ...context.env, ...active.env } });
      }
      if (name !== SKILL_TOOL_NAME) return tools.call(name, raw, context);
      const requested = requestedName(raw);
      if (requested !== undefined && !allows(filter, requested)) return fail(`no skill named "${requested}" is offered here`);
      const result = await tools.call(name, raw, context);
      const skill = result.success ? book.offered(filter).find((s) => s.name === requested) : undefined;
      if (skill) active = { name: skill.name, allowed: skill.allowedTools ?? null, env: book.envOf(skill.name) };
      return result;
    },
  };
}
