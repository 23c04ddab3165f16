import { join } from "node:path";
import { LOG_FILE_NAME } from "../core/log-file.ts";
import { LogLevels, type LogLevel } from "../core/logger.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { openWorkspace } from "../core/workspace.ts";
import { LogFollower, readLogTail, type LogLine } from "../gateway/log-tail.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { sinceOf } from "./since.ts";

const USAGE = `Usage: prx logs [-f|--follow] [--level trace|debug|info|warn|error] [--since TIME] [--lines N] [--json]
  the gateway's log of this workspace (logs/prx.log: its log lines and one access-log line per request), newest last.
  --since TIME  an ISO time or a duration back from now (30m, 12h, 7d)
  --lines N     at most the newest N lines (default 100)
  -f            then the lines written as they come, until Ctrl-C
`;

/** Lines shown without --lines; --since without --lines shows every line since then (up to the tail's bound). */
export const LOGS_DEFAULT_LINES = 100;
/** How often `prx logs -f` looks for new lines. */
export const LOGS_FOLLOW_INTERVAL_MS = 500;

export async function logsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx logs", argv, {
    follow: { type: "boolean", short: "f" },
    level: { type: "string" },
    since: { type: "string" },
    lines: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw usageError("prx logs takes no arguments (see prx logs --help)");
  const level = (values.level ?? "trace") as LogLevel;
  if (!(LogLevels as readonly string[]).includes(level)) throw unknownName("level", level, LogLevels, "prx logs");
  const count = values.lines === undefined ? (values.since ? Infinity : LOGS_DEFAULT_LINES) : Number(values.lines);
  if (!(count === Infinity || (Number.isInteger(count) && count > 0))) throw usageError(`prx logs: --lines takes a positive whole number; got '${values.lines}'`);
  const since = values.since === undefined ? null : new Date(sinceOf("prx logs", values.since, Date.now())).toISOString();
  const workspace = openWorkspace(values.workspace);
  const path = join(workspace.logsDir, LOG_FILE_NAME);
  const json = values.json === true;
  const show = (lines: LogLine[]) => {
    if (lines.length === 0) return;
    const text = json ? lines.map((line) => terminalJson(line)).join("\n") : visible(lines.map((line) => line.text).join("\n"), { multiline: true });
    process.stdout.write(`${text}\n`);
  };
  const tail = readLogTail(path, level, since);
  if (tail.end === 0 && !values.follow) {
    process.stderr.write(`no log yet at ${path}: a gateway of this workspace writes it (prx gateway)\n`);
    return 0;
  }
  show(count === Infinity ? tail.lines : tail.lines.slice(-count));
  if (!values.follow) return 0;
  const follower = new LogFollower(path, tail.end);
  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  process.once("SIGINT", () => stop());
  process.once("SIGTERM", () => stop());
  const timer = setInterval(() => show(follower.next(level)), LOGS_FOLLOW_INTERVAL_MS);
  await stopped;
  clearInterval(timer);
  return 0;
}
