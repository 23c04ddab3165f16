import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../core/errors.ts";
import { SKILL_FILE_MAX_BYTES, SKILLS_DIR_MAX_ENTRIES } from "./limits.ts";
import type { ShadowedSkill, Skill, SkillProblem, SkillRoot } from "./types.ts";

export const SKILL_FILE = "SKILL.md";

type Parser = typeof import("./frontmatter.ts").parseSkillFile;

interface Cached {
  source: string;
  mtimeMs: number;
  size: number;
  loaded: Skill | { error: string };
}

export interface Found {
  readonly skills: readonly Skill[];
  readonly shadowed: ReadonlyMap<string, ShadowedSkill[]>;
  readonly invalid: readonly SkillProblem[];
}

/** What find answers while no place has a skill folder (most workspaces, at every turn): one shared, frozen answer. */
const NOTHING_FOUND: Found = Object.freeze({
  skills: Object.freeze([]),
  shadowed: new Map<string, ShadowedSkill[]>(),
  invalid: Object.freeze([]),
});

/** A missing path is null without an error thrown (each turn looks at every root, most of them absent). */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw error;
  }
}

/** The skill folders of one root, by name, at most SKILLS_DIR_MAX_ENTRIES of them (symlinked folders count). */
export function skillFolders(root: string): string[] {
  const stat = statOrNull(root);
  if (!stat?.isDirectory()) return [];
  const names = readdirSync(root).filter((name) => !name.startsWith(".")).sort();
  const folders: string[] = [];
  for (const name of names) {
    if (folders.length >= SKILLS_DIR_MAX_ENTRIES) break;
    if (statOrNull(join(root, name))?.isDirectory()) folders.push(name);
  }
  return folders;
}

function foldersOrError(root: SkillRoot): string[] | { error: unknown } {
  try {
    return skillFolders(root.dir);
  } catch (error) {
    return { error };
  }
}

/**
 * Reads skill folders, re-parsing a SKILL.md only when its size or modification time changed. The YAML parser and
 * the frontmatter schema load with the first SKILL.md there is (a workspace without skills never loads them).
 */
export class SkillLoader {
  private readonly cache = new Map<string, Cached>();
  private parser: Parser | null = null;

  async find(roots: readonly SkillRoot[]): Promise<Found> {
    const listed = roots.map(foldersOrError);
    if (this.cache.size === 0 && listed.every((folders) => Array.isArray(folders) && folders.length === 0)) return NOTHING_FOUND;
    const skills: Skill[] = [];
    const byName = new Map<string, Skill>();
    const shadowed = new Map<string, ShadowedSkill[]>();
    const invalid: SkillProblem[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < roots.length; i++) {
      const root = roots[i]!;
      const folders = listed[i]!;
      if (!Array.isArray(folders)) {
        // an unreadable directory of skills is reported with them; the other places still count
        invalid.push({ dir: root.dir, source: root.source, error: errorMessage(folders.error) });
        continue;
      }
      for (const folder of folders) {
        const dir = join(root.dir, folder);
        const file = join(dir, SKILL_FILE);
        let loaded: Skill | { error: string };
        try {
          const stat = statOrNull(file);
          if (!stat?.isFile()) continue;
          seen.add(file);
          loaded = await this.load(file, dir, folder, root, stat);
        } catch (error) {
          // an unreadable folder (permissions) is reported like an invalid skill
          loaded = { error: `${file}: ${errorMessage(error)}` };
        }
        if ("error" in loaded) {
          invalid.push({ dir, source: root.source, error: loaded.error });
          continue;
        }
        const winner = byName.get(loaded.name);
        if (winner) {
          if (winner.dir === loaded.dir) continue;
          const list = shadowed.get(loaded.name) ?? [];
          list.push({ dir: loaded.dir, source: loaded.source });
          shadowed.set(loaded.name, list);
          continue;
        }
        byName.set(loaded.name, loaded);
        skills.push(loaded);
      }
    }
    for (const file of this.cache.keys()) if (!seen.has(file)) this.cache.delete(file);
    return { skills, shadowed, invalid };
  }

  private async load(file: string, dir: string, folder: string, root: SkillRoot, stat: Stats): Promise<Skill | { error: string }> {
    const cached = this.cache.get(file);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size && cached.source === root.source) {
      return cached.loaded;
    }
    const loaded = await this.read(file, dir, folder, root, stat);
    this.cache.set(file, { source: root.source, mtimeMs: stat.mtimeMs, size: stat.size, loaded });
    return loaded;
  }

  private async read(file: string, dir: string, folder: string, root: SkillRoot, stat: Stats): Promise<Skill | { error: string }> {
    if (stat.size > SKILL_FILE_MAX_BYTES) return { error: `${file}: it is ${stat.size} bytes, over ${SKILL_FILE_MAX_BYTES}` };
    try {
      this.parser ??= (await import("./frontmatter.ts")).parseSkillFile;
      const { frontmatter, body } = this.parser(readFileSync(file, "utf8"), folder, file);
      const skill: Skill = { name: frontmatter.name, description: frontmatter.description, dir: realpathSync(dir), source: root.source, body };
      if (frontmatter.license !== undefined) skill.license = frontmatter.license;
      if (frontmatter.compatibility !== undefined) skill.compatibility = frontmatter.compatibility;
      if (frontmatter["allowed-tools"] !== undefined) skill.allowedTools = frontmatter["allowed-tools"];
      if (frontmatter.metadata?.openclaw !== undefined) skill.openclaw = frontmatter.metadata.openclaw;
      return skill;
    } catch (error) {
      return { error: errorMessage(error) };
    }
  }
}
