import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { ToolsConfig } from "../../config/schema.ts";
import { PrxError } from "../../core/errors.ts";
import { fail, ok } from "../result.ts";
import type { ToolResult } from "../types.ts";
import { confineRead, confineWrite, isInside } from "./confine.ts";
import type { FileEditArgs, FileReadArgs, FileWriteArgs } from "./schemas.ts";

/** What file_read and file_write do once called (files.ts declares them; this loads with the first call). */

function tooLarge(what: string, size: number, max: number): PrxError {
  return new PrxError("LIMIT_EXCEEDED", `${what} is ${size} bytes, over tools.file_max_bytes (${max})`, {
    hint: "raise [tools] file_max_bytes in config.toml or work with smaller files",
  });
}

function readFileCapped(path: string, max: number): string {
  // O_NOFOLLOW: the checked path must not have been swapped for a symlink since it was resolved
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new PrxError("TOOL_FAILED", `"${path}" is not a regular file`);
    if (stat.size > max) throw tooLarge("file", stat.size, max);
    const buffer = Buffer.alloc(max + 1);
    let size = 0;
    while (size < buffer.byteLength) {
      const n = readSync(fd, buffer, size, buffer.byteLength - size, size);
      if (n === 0) break;
      size += n;
    }
    if (size > max) throw tooLarge("file", size, max);
    return buffer.subarray(0, size).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function writeFileCapped(path: string, content: string, append: boolean, max: number): number {
  const data = Buffer.from(content, "utf8");
  if (data.byteLength > max) throw tooLarge("content", data.byteLength, max);
  const mode = append ? constants.O_APPEND : constants.O_TRUNC;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | mode;
  const fd = openSync(path, flags, 0o644);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new PrxError("TOOL_FAILED", `"${path}" is not a regular file`);
    const total = stat.size + data.byteLength;
    if (append && total > max) throw tooLarge("file after append", total, max);
    let written = 0;
    while (written < data.byteLength) written += writeSync(fd, data, written);
    return written;
  } finally {
    closeSync(fd);
  }
}

/**
 * file_read: a UTF-8 file inside the workspace, or (by its full path) inside one of `readableDirs` (the offered
 * skills' folders), confined to that folder the same way; at most tools.file_max_bytes.
 */
export function readWorkspaceFile(config: ToolsConfig, workspace: string, args: FileReadArgs, readableDirs: readonly string[] = []): ToolResult {
  const path = isAbsolute(args.path) ? resolve(args.path) : null;
  const dir = path === null ? undefined : readableDirs.find((candidate) => isInside(candidate, path));
  const real = dir === undefined ? confineRead(workspace, args.path) : confineRead(dir, relative(dir, path!) || ".");
  return ok(readFileCapped(real, config.file_max_bytes));
}

/** file_write: write or append inside the workspace, never to the paths prx manages (see confine.ts). */
export function writeWorkspaceFile(config: ToolsConfig, workspace: string, args: FileWriteArgs): ToolResult {
  const size = Buffer.byteLength(args.content, "utf8");
  if (size > config.file_max_bytes) return fail(tooLarge("content", size, config.file_max_bytes).describe());
  const destination = confineWrite(workspace, args.path);
  const written = writeFileCapped(destination, args.content, args.append === true, config.file_max_bytes);
  return ok(`${args.append ? "appended" : "wrote"} ${written} bytes to ${args.path}`);
}

/**
 * file_edit: replace the one occurrence of old_text with new_text in a file inside the workspace (never in the paths
 * prx manages). Missing or repeated old_text fails and leaves the file as it was.
 */
export function editWorkspaceFile(config: ToolsConfig, workspace: string, args: FileEditArgs): ToolResult {
  const destination = confineWrite(workspace, args.path);
  const before = readFileCapped(confineRead(workspace, args.path), config.file_max_bytes);
  const at = before.indexOf(args.old_text);
  if (at === -1) {
    return fail(`file_edit: old_text was not found in ${args.path}; read the file and copy the text exactly (spaces and line breaks included)`);
  }
  const again = before.indexOf(args.old_text, at + 1);
  if (again !== -1) {
    const line = (offset: number) => before.slice(0, offset).split("\n").length;
    return fail(
      `file_edit: old_text occurs more than once in ${args.path} (lines ${line(at)} and ${line(again)}); ` +
        "include more of the surrounding text so it matches one place only",
    );
  }
  const after = before.slice(0, at) + args.new_text + before.slice(at + args.old_text.length);
  const size = Buffer.byteLength(after, "utf8");
  if (size > config.file_max_bytes) return fail(tooLarge("file after the edit", size, config.file_max_bytes).describe());
  writeFileCapped(destination, after, false, config.file_max_bytes);
  return ok(`edited ${args.path}: replaced ${args.old_text.length} characters at line ${before.slice(0, at).split("\n").length} with ${args.new_text.length}`);
}
