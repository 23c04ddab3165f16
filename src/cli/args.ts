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

/** One option of a command: a flag (`boolean`) or an option with a value (`string`), with an optional one-letter form. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** A string option that may be given several times: every value is kept, in order. */
  multiple?: boolean;
}

type Options = Record<string, OptionSpec>;

/** What was given: a string option's last value, `true` for a flag; absent when not given. */
export type OptionValues<O extends Options> = {
  [K in keyof O]?: O[K] extends { multiple: true } ? string[] : O[K]["type"] extends "string" ? string : boolean;
};

/** Options every command accepts. */
export const globalOptions = {
  workspace: { type: "string", short: "w" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/**
 * A command's argv: `--name value`, `--name=value`, `-n value`, `-nvalue`, flag groups (`-ab`), `--` before
 * positionals; the last of a repeated option wins (all are kept for a `multiple` one). Strict: an unknown option, a flag given a value, a value that looks
 * like an option (`-m -x`: write `--message=-x`) and, unless allowed, a positional are usage errors. Hand-written
 * (node:util's parseArgs costs ~1.5 ms to load, a tenth of a one-shot `prx agent -m`); an unknown flag names the
 * closest valid one.
 */
export function parseCommand<O extends Options>(where: string, argv: readonly string[], options: O, allowPositionals = true) {
  const all: Options = { ...globalOptions, ...options };
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(all)) if (spec.short) byShort.set(spec.short, name);
  const values: Record<string, string | boolean | string[]> = {};
  const set = (name: string, value: string) => {
    if (!all[name]!.multiple) values[name] = value;
    else ((values[name] as string[] | undefined) ?? (values[name] = [] as string[]) as string[]).push(value);
  };
  const positionals: string[] = [];
  const unknown = (flag: string) => unknownName("flag", flag, Object.keys(all).map((n) => `--${n}`), where);
  const positional = (arg: string) => {
    if (!allowPositionals) throw usageError(`${where}: unexpected argument '${arg}' (this command takes no positional arguments)`);
    positionals.push(arg);
  };
  /** The value of string option `name` (spelled `flag`) from the next argument. */
  const next = (i: number, flag: string, name: string): string => {
    const value = argv[i];
    if (value === undefined) throw usageError(`${where}: --${name} needs a value`);
    if (value.length > 1 && value.startsWith("-")) {
      throw usageError(`${where}: ${flag} needs a value, not '${value}' (for a value starting with -, write --${name}=${value})`);
    }
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      for (const rest of argv.slice(i + 1)) positional(rest);
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const spec = Object.hasOwn(all, name) ? all[name]! : undefined;
      if (!spec) throw unknown(`--${name}`);
      if (spec.type === "boolean") {
        if (eq >= 0) throw usageError(`${where}: --${name} does not take a value`);
        values[name] = true;
      } else {
        set(name, eq >= 0 ? arg.slice(eq + 1) : next(++i, arg, name));
      }
      continue;
    }
    if (arg.length < 2 || !arg.startsWith("-")) {
      positional(arg);
      continue;
    }
    // -a, -abc (flags), -m value, -mvalue, -am value
    for (let j = 1; j < arg.length; j++) {
      const name = byShort.get(arg[j]!);
      if (name === undefined) throw unknown(`-${arg[j]}`);
      if (all[name]!.type === "boolean") {
        values[name] = true;
        continue;
      }
      set(name, j + 1 < arg.length ? arg.slice(j + 1) : next(++i, `-${arg[j]}`, name));
      break;
    }
  }
  return { values: values as OptionValues<O & typeof globalOptions>, positionals };
}
