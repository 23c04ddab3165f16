import { isAbsolute, join, resolve } from "node:path";
import type { SkillsConfig } from "../config/skills.ts";
import { SkillLoader } from "./discover.ts";
import { entryEnv, ineligibleReasons, type EligibilityContext } from "./eligibility.ts";
import { SKILLS_RESCAN_AFTER_MS } from "./limits.ts";
import { PROMPT_BOUNDS, skillsSection, type PromptBounds, type SkillsSection } from "./prompt.ts";
import type { Skill, SkillFilter, SkillRoot, SkillScan, SkillStatus } from "./types.ts";

/** What a SkillBook reads: the workspace, its configuration, and the machine it runs on. */
export interface SkillBookOptions {
  workspace: string;
  /** `[skills]` of the configuration. */
  skills: SkillsConfig;
  /** The whole configuration as parsed (requires.config reads dotted keys of it). */
  config: unknown;
  env: Record<string, string | undefined>;
  /** process.platform by default. */
  platform?: string;
  /** Bun.which against env.PATH by default. */
  onPath?: (program: string) => boolean;
  bounds?: PromptBounds;
  /** Clock of the rescan window (tests move it); Date.now by default. */
  now?: () => number;
}

/** The home directory of `~/.agents/skills` and of `~/` in extra_dirs: $HOME, else the user's (node:os, loaded then). */
function homeOf(env: Record<string, string | undefined>): string {
  return env.HOME || (require("node:os") as typeof import("node:os")).homedir();
}

/** Where skills are looked for, highest precedence first. */
export function skillRoots(workspace: string, skills: SkillsConfig, env: Record<string, string | undefined>): SkillRoot[] {
  const home = homeOf(env);
  const roots: SkillRoot[] = [
    { dir: join(workspace, "skills"), source: "workspace" },
    { dir: join(home, ".agents", "skills"), source: "user" },
  ];
  for (const dir of skills.extra_dirs) {
    const path = dir === "~" ? home : dir.startsWith("~/") ? join(home, dir.slice(2)) : isAbsolute(dir) ? dir : resolve(workspace, dir);
    roots.push({ dir: path, source: "extra" });
  }
  return roots;
}

/** Whether a turn restricted to `filter` may use the skill named `name`. */
export function allows(filter: SkillFilter, name: string): boolean {
  return filter === undefined || filter.includes(name);
}

/** A skill's instructions as the model reads them: `{baseDir}` is its folder. */
export function renderBody(skill: Skill): string {
  return skill.body.replaceAll("{baseDir}", skill.dir);
}

/** The scan while no place has a skill folder: one shared, frozen answer. */
const NO_SKILLS: SkillScan = Object.freeze({ skills: Object.freeze([]), invalid: Object.freeze([]) });
const NONE_OFFERED: readonly Skill[] = Object.freeze([]);

/**
 * The skills of one host: found in their places (a changed SKILL.md is read again), checked for eligibility, and
 * offered by name and description; the host's one record of which skills were used last. A turn's section looks at
 * the places again once the last look is older than SKILLS_RESCAN_AFTER_MS; `scan`, a reload and a skill the tool
 * does not know look at once.
 */
export class SkillBook {
  private readonly loader = new SkillLoader();
  private context: Omit<EligibilityContext, "entry">;
  private readonly bounds: PromptBounds;
  private last: SkillScan = { skills: [], invalid: [] };
  private readonly uses = new Map<string, number>();
  private tick = 0;
  /** The roots of the current `[skills]`, and the home directory they were made with (made again when either changes). */
  private rootsMade: { home: string | undefined; roots: SkillRoot[] } | null = null;
  private readonly now: () => number;
  /** When the look that gave `last` started, with the options and HOME it was made with; null: none yet. */
  private looked: { at: number; options: SkillBookOptions; home: string | undefined } | null = null;
  /** The look under way (of the current options): the turns that start meanwhile wait for it rather than look again. */
  private looking: Promise<SkillScan> | null = null;
  /** What the turns between two looks share: the unfiltered offer, and the last section with what it was made of. */
  private offeredAll: { scan: SkillScan; skills: readonly Skill[] } | null = null;
  private lastSection: { scan: SkillScan; filter: SkillFilter; tick: number; section: SkillsSection } | null = null;

  constructor(private options: SkillBookOptions) {
    const env = options.env;
    this.context = {
      platform: options.platform ?? process.platform,
      env,
      onPath: options.onPath ?? ((program) => Bun.which(program, { PATH: env.PATH ?? "" }) !== null),
      config: options.config,
    };
    this.bounds = options.bounds ?? PROMPT_BOUNDS;
    this.now = options.now ?? Date.now;
  }

  /** A reloaded configuration: `[skills]` and the config requires.config reads; what was used last is kept. */
  configure(skills: SkillsConfig, config: unknown): void {
    this.options = { ...this.options, skills, config };
    this.context = { ...this.context, config };
    this.rootsMade = null;
    // the next turn looks at once, even while a look of the previous configuration is under way
    this.looked = null;
    this.looking = null;
  }

  get enabled(): boolean {
    return this.options.skills.enabled;
  }

  roots(): readonly SkillRoot[] {
    const home = this.options.env.HOME;
    if (this.rootsMade === null || this.rootsMade.home !== home) {
      this.rootsMade = { home, roots: skillRoots(this.options.workspace, this.options.skills, this.options.env) };
    }
    return this.rootsMade.roots;
  }

  /** Look at every skill folder now (re-reading only changed files); with `[skills] enabled = false`, none. */
  async scan(): Promise<SkillScan> {
    const looked = { at: this.now(), options: this.options, home: this.options.env.HOME };
    const looking = this.look();
    this.looking = looking;
    try {
      const scan = await looking;
      this.looked = looked;
      return scan;
    } finally {
      if (this.looking === looking) this.looking = null;
    }
  }

  /** The last scan while it is at most SKILLS_RESCAN_AFTER_MS old and of the same configuration and HOME; else a new one. */
  private recent(): SkillScan | Promise<SkillScan> {
    if (this.looking) return this.looking;
    const looked = this.looked;
    const current = looked !== null && looked.options === this.options && looked.home === this.options.env.HOME;
    if (current && this.now() - looked.at <= SKILLS_RESCAN_AFTER_MS) return this.last;
    return this.scan();
  }

  private async look(): Promise<SkillScan> {
    if (!this.enabled) return (this.last = { skills: [], invalid: [] });
    const found = await this.loader.find(this.roots());
    if (found.skills.length === 0 && found.invalid.length === 0) return (this.last = NO_SKILLS);
    // one PATH lookup per program per scan, however many skills ask for it
    const looked = new Map<string, boolean>();
    const onPath = (program: string) => {
      let there = looked.get(program);
      if (there === undefined) looked.set(program, (there = this.context.onPath(program)));
      return there;
    };
    const skills: SkillStatus[] = found.skills.map((skill) => {
      const reasons = ineligibleReasons(skill, { ...this.context, onPath, entry: this.options.skills.entries[skill.name] });
      return { skill, eligible: reasons.length === 0, reasons, shadowed: found.shadowed.get(skill.name) ?? [] };
    });
    return (this.last = { skills, invalid: found.invalid });
  }

  /** The last scan. */
  get current(): SkillScan {
    return this.last;
  }

  /** Eligible skills of the last scan that `filter` allows. */
  offered(filter?: SkillFilter): readonly Skill[] {
    const scan = this.last;
    if (scan.skills.length === 0) return NONE_OFFERED;
    if (filter === undefined && this.offeredAll?.scan === scan) return this.offeredAll.skills;
    const skills = scan.skills.filter((s) => s.eligible && allows(filter, s.skill.name)).map((s) => s.skill);
    if (filter === undefined) this.offeredAll = { scan, skills };
    return skills;
  }

  /** The system prompt's skills section for a turn restricted to `filter`, of a scan at most SKILLS_RESCAN_AFTER_MS old. */
  async section(filter?: SkillFilter): Promise<SkillsSection> {
    await this.recent();
    const scan = this.last;
    // the same look, allowlist (the same list: an agent's) and uses as the last turn: the same section
    const last = this.lastSection;
    if (last && last.scan === scan && last.filter === filter && last.tick === this.tick) return last.section;
    const section = skillsSection(this.offered(filter), this.uses, this.bounds);
    this.lastSection = { scan, filter, tick: this.tick, section };
    return section;
  }

  /** An offered skill by name (looked for again once if the last scan did not have it); records it as used. */
  async use(name: string, filter?: SkillFilter): Promise<Skill | undefined> {
    let found = this.offered(filter).find((skill) => skill.name === name);
    if (!found) {
      await this.scan();
      found = this.offered(filter).find((skill) => skill.name === name);
    }
    if (found) this.uses.set(name, ++this.tick);
    return found;
  }

  /** What `[skills.entries.<name>] env` gives the skill's shell calls (literals, and `from_env` read from prx's environment). */
  envOf(name: string): Record<string, string> {
    return entryEnv(this.options.skills.entries[name], this.options.env);
  }

  /** The folders of the offered skills: file_read reads inside them (never writes). */
  readableDirs(): string[] {
    return this.offered().map((skill) => skill.dir);
  }
}
