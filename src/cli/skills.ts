import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { loadConfig } from "../config/loader.ts";
import { PrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { SkillBook } from "../skills/index.ts";
import { skillReport, skillsReport, type SkillReport } from "../skills/report.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { hoistGlobalOptions } from "./global-options.ts";

const USAGE = `Usage: prx skills <command>
  list [--json]                 every skill found, where, whether it is offered (and why not), what it shadows
  info <name> [--json]          one skill: its folder, frontmatter, files and eligibility
  new <name>                    write <workspace>/skills/<name>/SKILL.md to fill in
  install <dir|.tar.gz|.zip> [--force]   check a skill whole, then put it in <workspace>/skills/<name>
  remove <name>                 delete <workspace>/skills/<name>
Skills are looked for in <workspace>/skills/, then ~/.agents/skills/, then [skills] extra_dirs; the first of a name wins.
`;

export const SUBCOMMANDS = ["list", "info", "new", "install", "remove"] as const;

function openBook(workspaceFlag: string | undefined): { book: SkillBook; skillsDir: string } {
  const workspace = openWorkspace(workspaceFlag);
  const { config } = loadConfig(workspace.configPath);
  const book = new SkillBook({ workspace: workspace.root, skills: config.skills, config, env: process.env });
  return { book, skillsDir: join(workspace.root, "skills") };
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function listLines(report: SkillReport): string[] {
  const state = report.eligible ? "offered" : "not offered";
  const lines = [`${visible(report.name)}  (${report.source}, ${state})  ${visible(clip(report.description, 100))}`];
  for (const reason of report.reasons) lines.push(`    why not: ${visible(reason)}`);
  for (const hidden of report.shadowed) lines.push(`    shadows ${visible(hidden.dir)} (${hidden.source})`);
  return lines;
}

/** Every file of a skill folder, relative to it (at most `max`). */
function filesOf(dir: string, max = 200): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (out.length >= max) return;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out;
}

export async function skillsCommand(given: string[]): Promise<number> {
  // `prx skills -w DIR list`
  const [sub, ...rest] = hoistGlobalOptions(given, "prx skills");
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("command", sub, SUBCOMMANDS, "prx skills");
  const { values, positionals } = parseCommand(`prx skills ${sub}`, rest, { json: { type: "boolean" }, force: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [arg, extra] = positionals;
  if (extra !== undefined) throw usageError(`prx skills ${sub}: unexpected argument '${extra}'`);
  const { book, skillsDir } = openBook(values.workspace);
  switch (sub) {
    case "list": {
      if (arg !== undefined) throw usageError(`prx skills list takes no argument, got '${arg}'`);
      const report = skillsReport(await book.scan());
      if (values.json) {
        process.stdout.write(terminalJson(report, 2) + "\n");
        return 0;
      }
      const lines = report.skills.flatMap(listLines);
      for (const bad of report.invalid) lines.push(`invalid: ${visible(bad.dir)} (${bad.source}): ${visible(bad.error)}`);
      process.stdout.write(lines.length === 0 ? `no skills (put skill folders in ${skillsDir})\n` : lines.join("\n") + "\n");
      return 0;
    }
    case "info": {
      if (!arg) throw usageError("prx skills info: missing <name>");
      const scan = await book.scan();
      const status = scan.skills.find((s) => s.skill.name === arg);
      if (!status) {
        const bad = scan.invalid.find((p) => p.dir.endsWith(`/${arg}`));
        throw new PrxError("NOT_FOUND", bad ? `skill ${arg} cannot be loaded: ${bad.error}` : `no skill named ${arg}`, { hint: "prx skills list shows every skill" });
      }
      const report = { ...skillReport(status), compatibility: status.skill.compatibility ?? null, files: filesOf(status.skill.dir) };
      if (values.json) {
        process.stdout.write(terminalJson(report, 2) + "\n");
        return 0;
      }
      const lines = [
        `${visible(report.name)} (${report.source})`,
        `  folder: ${visible(report.dir)}`,
        `  description: ${visible(report.description)}`,
        `  offered: ${report.eligible ? "yes" : `no: ${visible(report.reasons.join("; "))}`}`,
      ];
      if (report.license) lines.push(`  license: ${visible(report.license)}`);
      if (report.compatibility) lines.push(`  compatibility: ${visible(report.compatibility)}`);
      if (report.allowed_tools) lines.push(`  allowed-tools: ${visible(report.allowed_tools.join(" "))}`);
      for (const hidden of report.shadowed) lines.push(`  shadows: ${visible(hidden.dir)} (${hidden.source})`);
      lines.push(`  files: ${report.files.map((f) => visible(f)).join(", ")}`);
      process.stdout.write(lines.join("\n") + "\n");
      return 0;
    }
    case "new": {
      if (!arg) throw usageError("prx skills new: missing <name>");
      const { scaffoldSkill } = await import("../skills/scaffold.ts");
      const file = scaffoldSkill(skillsDir, arg);
      process.stdout.write(`wrote ${file}: fill in its description and instructions; prx skills info ${arg} checks it\n`);
      return 0;
    }
    case "install": {
      if (!arg) throw usageError("prx skills install: missing <dir|.tar.gz|.zip>");
      const { installSkill } = await import("../skills/install.ts");
      const done = await installSkill(arg, skillsDir, { force: values.force === true });
      const scan = await book.scan();
      const status = scan.skills.find((s) => s.skill.name === done.name);
      const offered = status?.eligible ? "offered" : `not offered: ${status?.reasons.join("; ") ?? "shadowed"}`;
      if (values.json) {
        process.stdout.write(terminalJson({ installed: done.dir, name: done.name, files: done.files, replaced: done.replaced, eligible: status?.eligible ?? false }, 2) + "\n");
      } else {
        process.stdout.write(`installed ${done.name} (${done.files} files) into ${done.dir}${done.replaced ? " (replaced the one installed)" : ""}; ${visible(offered)}\n`);
      }
      return 0;
    }
    case "remove": {
      if (!arg) throw usageError("prx skills remove: missing <name>");
      const { removeSkill } = await import("../skills/install.ts");
      process.stdout.write(`removed ${removeSkill(skillsDir, arg)}\n`);
      return 0;
    }
  }
  return 2;
}
