import { parseArgs, type ParseArgsConfig } from "node:util";
import { PrxError } from "../core/errors.ts";

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const temp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = temp;
    }
  }
  return row[b.length]!;
}

export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = editDistance(name, c);
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

export function usageError(message: string): PrxError {
  return new PrxError("USAGE", message);
}

export function unknownName(kind: string, name: string, candidates: readonly string[], where = "prx"): PrxError {
  const guess = closest(name, candidates);
  return usageError(`${where}: unknown ${kind} '${name}'${guess ? `; did you mean '${guess}'?` : ""} (see ${where} --help)`);
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Options every command accepts. */
export const globalOptions = {
  workspace: { type: "string", short: "w" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/** util.parseArgs with prx's error style: an unknown flag names the closest valid one. */
export function parseCommand<O extends Options>(where: string, argv: string[], options: O, allowPositionals = true) {
  const all = { ...globalOptions, ...options };
  try {
    return parseArgs({ args: argv, options: all, allowPositionals, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const flag = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (flag) {
      const names = Object.keys(all).map((n) => `--${n}`);
      throw unknownName("flag", flag, names, where);
    }
    const missing = /Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message)?.[1];
    if (missing) throw usageError(`${where}: ${missing} needs a value`);
    throw usageError(`${where}: ${message.split("\n")[0]}`);
  }
}
