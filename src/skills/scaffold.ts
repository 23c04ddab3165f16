import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SKILL_NAME_MAX_CHARS, SKILL_NAME_PATTERN, SKILL_NAME_RULE } from "../config/skill-name.ts";
import { PrxError } from "../core/errors.ts";
import { SKILL_FILE } from "./discover.ts";

/** A SKILL.md that passes the checks as written: its name, a description to replace, and where the parts go. */
export function skillTemplate(name: string): string {
  return `---
name: ${name}
description: Say what this skill does and when to use it (the model reads only this until it opens the skill).
# license: Apache-2.0
# allowed-tools: file_read shell
# metadata:
#   openclaw:
#     requires:
#       bins: [python3]
---

# ${name}

Instructions the model follows once it reads this skill. Files of the skill are under {baseDir}
(for example {baseDir}/references/notes.md); scripts in {baseDir}/scripts/ run through the shell tool.
`;
}

/** `prx skills new <name>`: `<skillsDir>/<name>/SKILL.md`, never over an existing skill. */
export function scaffoldSkill(skillsDir: string, name: string): string {
  if (name.length > SKILL_NAME_MAX_CHARS || !SKILL_NAME_PATTERN.test(name)) {
    throw new PrxError("USAGE", `prx skills new: "${name}" is not a skill name: ${SKILL_NAME_RULE}`);
  }
  const dir = join(skillsDir, name);
  if (existsSync(dir)) throw new PrxError("CONFLICT", `${dir} exists already`, { hint: "pick another name, or edit that skill" });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, SKILL_FILE);
  writeFileSync(file, skillTemplate(name), { flag: "wx" });
  return file;
}
