import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import type { ToolsConfig } from "../../config/schema.ts";
import { PrxError } from "../../core/errors.ts";
import { fail, ok } from "../result.ts";
import type { ToolResult } from "../types.ts";
import { confineRead, confineWrite } from "./confine.ts";
import type { FileReadArgs, FileWriteArgs } from "./schemas.ts";

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

/** file_read: a UTF-8 file inside the workspace, at most tools.file_max_bytes. */
export function readWorkspaceFile(config: ToolsConfig, workspace: string, args: FileReadArgs): ToolResult {
  return ok(readFileCapped(confineRead(workspace, args.path), config.file_max_bytes));
}

/** file_write: write or append inside the workspace, never to the paths prx manages (see confine.ts). */
export function writeWorkspaceFile(config: ToolsConfig, workspace: string, args: FileWriteArgs): ToolResult {
  const size = Buffer.byteLength(args.content, "utf8");
  if (size > config.file_max_bytes) return fail(tooLarge("content", size, config.file_max_bytes).describe());
  const destination = confineWrite(workspace, args.path);
  const written = writeFileCapped(destination, args.content, args.append === true, config.file_max_bytes);
  return ok(`${args.append ? "appended" : "wrote"} ${written} bytes to ${args.path}`);
}
