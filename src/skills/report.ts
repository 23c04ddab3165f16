import type { SkillScan, SkillStatus } from "./types.ts";

/** One skill as `prx skills list --json`, `GET /api/skills` and the console show it. */
export interface SkillReport {
  name: string;
  description: string;
  source: string;
  dir: string;
  eligible: boolean;
  /** Why it is not offered (empty when it is). */
  reasons: string[];
  /** Skills of the same name it hides, in lower-precedence places. */
  shadowed: { dir: string; source: string }[];
  license: string | null;
  allowed_tools: string[] | null;
}

export interface SkillsReport {
  skills: SkillReport[];
  /** Folders with a SKILL.md that could not be loaded, and why. */
  invalid: { dir: string; source: string; error: string }[];
}

export function skillReport(status: SkillStatus): SkillReport {
  const { skill } = status;
  return {
    name: skill.name,
    description: skill.description,
    source: skill.source,
    dir: skill.dir,
    eligible: status.eligible,
    reasons: status.reasons,
    shadowed: status.shadowed.map(({ dir, source }) => ({ dir, source })),
    license: skill.license ?? null,
    allowed_tools: skill.allowedTools ?? null,
  };
}

export function skillsReport(scan: SkillScan): SkillsReport {
  return {
    skills: scan.skills.map(skillReport),
    invalid: scan.invalid.map(({ dir, source, error }) => ({ dir, source, error })),
  };
}
