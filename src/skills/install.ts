import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { gunzipSync } from "node:zlib";
import { PrxError } from "../core/errors.ts";
import { SKILL_FILE } from "./discover.ts";
import { parseSkillFile, type SkillFrontmatter } from "./frontmatter.ts";
import { SKILL_INSTALL_MAX_BYTES, SKILL_INSTALL_MAX_FILES } from "./limits.ts";
import { readZip, type ArchiveFile } from "./zip.ts";

/**
 * `prx skills install <dir|.tar.gz|.zip>`: the skill is read whole and checked (paths, sizes, its SKILL.md) before
 * anything lands; it is written into a dot-folder of `<workspace>/skills/` (never scanned) and only then takes its
 * place. An installed skill of the same name is replaced only with `force`.
 */
export interface InstalledSkill {
  name: string;
  dir: string;
  files: number;
  replaced: boolean;
  frontmatter: SkillFrontmatter;
}

function refused(why: string): PrxError {
  return new PrxError("SKILL_INVALID", `the skill cannot be installed: ${why}`, {
    hint: "a skill is a folder with SKILL.md (frontmatter name equal to the folder's name) and its files, no links",
  });
}

/** A path a skill may hold: relative, `/`-separated, no empty, `.` or `..` segment, no control character. */
function pathProblem(path: string): string | null {
  if (path.length === 0 || path.length > 1024) return "an empty or over-long path";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "an absolute path";
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return "a control character or a backslash";
  for (const segment of path.split("/")) if (segment === "" || segment === "." || segment === "..") return `a "${segment}" segment`;
  return null;
}

function bounded(files: ArchiveFile[]): ArchiveFile[] {
  if (files.length > SKILL_INSTALL_MAX_FILES) throw new PrxError("LIMIT_EXCEEDED", `the skill holds ${files.length} files, more than ${SKILL_INSTALL_MAX_FILES}`);
  const total = files.reduce((n, f) => n + f.data.byteLength, 0);
  if (total > SKILL_INSTALL_MAX_BYTES) throw new PrxError("LIMIT_EXCEEDED", `the skill's files are ${total} bytes, more than ${SKILL_INSTALL_MAX_BYTES}`);
  for (const file of files) {
    const problem = pathProblem(file.path);
    if (problem) throw refused(`"${file.path}" is ${problem}`);
  }
  return files;
}

/** A folder's regular files (a link anywhere is refused: it could reach outside the skill). */
function readFolder(root: string): ArchiveFile[] {
  const files: ArchiveFile[] = [];
  let bytes = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      const rel = relative(root, path).split(sep).join("/");
      if (stat.isSymbolicLink()) throw refused(`${rel} is a symbolic link`);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        bytes += stat.size;
        if (files.length + 1 > SKILL_INSTALL_MAX_FILES) throw new PrxError("LIMIT_EXCEEDED", `the skill holds more than ${SKILL_INSTALL_MAX_FILES} files`);
        if (bytes > SKILL_INSTALL_MAX_BYTES) throw new PrxError("LIMIT_EXCEEDED", `the skill's files exceed ${SKILL_INSTALL_MAX_BYTES} bytes`);
        files.push({ path: rel, data: readFileSync(path), mode: stat.mode & 0o777 });
      } else throw refused(`${rel} is not a regular file or folder`);
    }
  };
  walk(root);
  return files;
}

async function readTarGz(archive: Uint8Array): Promise<ArchiveFile[]> {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(archive, { maxOutputLength: SKILL_INSTALL_MAX_BYTES + SKILL_INSTALL_MAX_FILES * 1024 + 1024 * 1024 });
  } catch (cause) {
    throw new PrxError("SKILL_INVALID", "the .tar.gz archive cannot be unpacked within the skill size limit (or is not gzip)", {
      cause,
      hint: `a skill's files are at most ${SKILL_INSTALL_MAX_BYTES} bytes`,
    });
  }
  const entries = await new Bun.Archive(tar).files();
  const files: ArchiveFile[] = [];
  for (const [path, file] of entries) files.push({ path: path.replace(/^\.\//, ""), data: await file.bytes() });
  return files;
}

/** The skill's files relative to its folder, and the folder's name (or null: take it from the frontmatter). */
function rooted(files: ArchiveFile[], folder: string | null): { files: ArchiveFile[]; folder: string | null } {
  if (files.some((f) => f.path === SKILL_FILE)) return { files, folder };
  const tops = new Set(files.map((f) => f.path.split("/")[0]!));
  const [top] = tops;
  if (tops.size === 1 && top !== undefined && files.some((f) => f.path === `${top}/${SKILL_FILE}`)) {
    return { files: files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) })), folder: top };
  }
  throw refused(`no ${SKILL_FILE} at its top (or in its one top folder)`);
}

async function readSource(source: string): Promise<{ files: ArchiveFile[]; folder: string | null }> {
  const stat = statSync(source, { throwIfNoEntry: false });
  if (!stat) throw new PrxError("NOT_FOUND", `${source} does not exist`, { hint: "give a skill folder, a .tar.gz or a .zip" });
  if (stat.isDirectory()) return rooted(bounded(readFolder(source)), basename(source));
  if (stat.size > SKILL_INSTALL_MAX_BYTES) throw new PrxError("LIMIT_EXCEEDED", `${source} is ${stat.size} bytes, more than ${SKILL_INSTALL_MAX_BYTES}`);
  const bytes = readFileSync(source);
  const limits = { maxFiles: SKILL_INSTALL_MAX_FILES, maxBytes: SKILL_INSTALL_MAX_BYTES };
  if (/\.zip$/i.test(source)) return rooted(bounded(readZip(bytes, limits)), null);
  if (/\.(tar\.gz|tgz)$/i.test(source)) return rooted(bounded(await readTarGz(bytes)), null);
  throw new PrxError("USAGE", `${source}: give a skill folder, a .tar.gz (.tgz) or a .zip`);
}

const suffix = () => `${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

/** Install one skill into `skillsDir` (`<workspace>/skills`). */
export async function installSkill(source: string, skillsDir: string, options: { force?: boolean } = {}): Promise<InstalledSkill> {
  const read = await readSource(source);
  const skillFile = read.files.find((f) => f.path === SKILL_FILE)!;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(skillFile.data);
  // an archive without a top folder is named by its frontmatter; the check against the folder's name then holds by itself
  const claimed = read.folder ?? /^name:\s*["']?([a-z0-9-]+)/m.exec(text)?.[1] ?? "";
  const { frontmatter } = parseSkillFile(text, claimed, `${source}: ${SKILL_FILE}`);
  const name = frontmatter.name;
  const target = join(skillsDir, name);
  const replaced = existsSync(target);
  if (replaced && !options.force) {
    throw new PrxError("CONFLICT", `a skill named ${name} is already installed in ${target}`, { hint: "`prx skills install --force` replaces it" });
  }
  mkdirSync(skillsDir, { recursive: true });
  const staging = join(skillsDir, `.install-${name}-${suffix()}`);
  try {
    for (const file of read.files) {
      const path = join(staging, ...file.path.split("/"));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.data, { mode: 0o644 });
      if (file.mode !== undefined && file.mode & 0o111) chmodSync(path, 0o755);
    }
    if (replaced) {
      const old = join(skillsDir, `.old-${name}-${suffix()}`);
      renameSync(target, old);
      renameSync(staging, target);
      rmSync(old, { recursive: true, force: true });
    } else renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { name, dir: target, files: read.files.length, replaced, frontmatter };
}

/** Remove `<workspace>/skills/<name>`. */
export function removeSkill(skillsDir: string, name: string): string {
  const target = join(skillsDir, name);
  if (pathProblem(name) || name.includes("/") || name.startsWith(".") || !existsSync(join(target, SKILL_FILE))) {
    throw new PrxError("NOT_FOUND", `no skill named ${name} in ${skillsDir}`, {
      hint: "prx skills list shows each skill's folder; only the workspace's skills are removed by prx (others are your files)",
    });
  }
  rmSync(target, { recursive: true, force: true });
  return target;
}
