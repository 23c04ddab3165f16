import { closeSync, openSync, readSync, statSync } from "node:fs";
import { LogLevels, type LogLevel } from "../core/logger.ts";

/** Bytes of the log file's end read for one answer (the newest lines); older lines are in the file itself. */
export const LOG_TAIL_MAX_BYTES = 256 * 1024;
/** Most lines one answer (or one stream event) carries. */
export const LOG_TAIL_MAX_LINES = 1000;

/** One line of `logs/prx.log`, as the logger formats it (`TIME LEVEL [scope] message {fields}`). */
export interface LogLine {
  at: string | null;
  level: LogLevel;
  scope: string | null;
  text: string;
}

const LINE = /^(\d{4}-\d\d-\d\dT[\d:.]+Z) (TRACE|DEBUG|INFO|WARN|ERROR) +\[([^\]]*)\] /;

/**
 * Lines of log text: a line the logger wrote keeps its time, level and scope; any other line (a stack, a child's
 * output) belongs to the line before it, at its level.
 */
export function parseLogLines(text: string, previous: LogLevel = "info"): LogLine[] {
  const out: LogLine[] = [];
  let level = previous;
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    const match = LINE.exec(raw);
    if (match) level = match[2]!.toLowerCase() as LogLevel;
    out.push({ at: match?.[1] ?? null, level, scope: match?.[3] ?? null, text: raw });
  }
  return out;
}

/** Lines at `level` or above, after `since` (ISO time; lines without a time follow their line's). */
export function filterLogLines(lines: LogLine[], level: LogLevel, since: string | null): LogLine[] {
  const floor = LogLevels.indexOf(level);
  let after = since === null;
  return lines.filter((line) => {
    if (since !== null && line.at !== null) after = line.at > since;
    return after && LogLevels.indexOf(line.level) >= floor;
  });
}

/** Bytes `[from, to)` of a file, at most LOG_TAIL_MAX_BYTES of them (the last ones). */
function readRange(path: string, from: number, to: number): string {
  const cut = to - LOG_TAIL_MAX_BYTES > from;
  // a cut read takes one byte more: a line starts at the cut only if that byte ends the line before
  const start = cut ? to - LOG_TAIL_MAX_BYTES - 1 : from;
  if (to <= start) return "";
  const bytes = Buffer.alloc(to - start);
  const fd = openSync(path, "r");
  try {
    readSync(fd, bytes, 0, bytes.length, start);
  } finally {
    closeSync(fd);
  }
  const text = bytes.toString("utf8");
  if (!cut) return text;
  const first = text.indexOf("\n");
  return first < 0 ? "" : text.slice(first + 1);
}

/** Size of the file, 0 when it does not exist (yet). */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The newest lines of the log file matching the filter, oldest first; `end` is where a follower goes on. */
export function readLogTail(path: string, level: LogLevel, since: string | null): { lines: LogLine[]; end: number } {
  const end = sizeOf(path);
  const lines = filterLogLines(parseLogLines(readRange(path, 0, end)), level, since);
  return { lines: lines.slice(-LOG_TAIL_MAX_LINES), end };
}

/**
 * Follows the log file from a byte offset: each `next()` returns the whole lines written since (a rotation, seen as
 * a smaller file, starts over at its beginning). A half-written last line waits for the next call.
 */
export class LogFollower {
  private lastLevel: LogLevel = "info";

  constructor(
    private readonly path: string,
    private offset: number,
  ) {}

  next(level: LogLevel): LogLine[] {
    const size = sizeOf(this.path);
    if (size < this.offset) this.offset = 0;
    if (size === this.offset) return [];
    const text = readRange(this.path, this.offset, size);
    const complete = text.lastIndexOf("\n") + 1;
    if (complete === 0) return [];
    this.offset = size - Buffer.byteLength(text.slice(complete));
    const lines = parseLogLines(text.slice(0, complete), this.lastLevel);
    this.lastLevel = lines.at(-1)?.level ?? this.lastLevel;
    return filterLogLines(lines, level, null).slice(-LOG_TAIL_MAX_LINES);
  }
}
