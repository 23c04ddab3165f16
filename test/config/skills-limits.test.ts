import { describe, expect, test } from "bun:test";
import { SKILLS_MAX_EXTRA_DIRS, SkillsConfigSchema } from "../../src/config/skills.ts";

const dirs = (n: number) => Array.from({ length: n }, (_, i) => `/skills/${i}`);

describe("[skills] extra_dirs, at SKILLS_MAX_EXTRA_DIRS", () => {
  test("the limit's count of directories is taken; one more is refused", () => {
    expect(SkillsConfigSchema.safeParse({ extra_dirs: dirs(SKILLS_MAX_EXTRA_DIRS) }).success).toBe(true);
    expect(SkillsConfigSchema.safeParse({ extra_dirs: dirs(SKILLS_MAX_EXTRA_DIRS + 1) }).success).toBe(false);
  });
});
