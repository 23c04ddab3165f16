import { PrxError } from "../core/errors.ts";

/** Options every command takes, with a value (see args.ts globalOptions). */
const WITH_VALUE = new Set(["-w", "--workspace"]);

function missingValue(where: string, flag: string): PrxError {
  return new PrxError("USAGE", `${where}: ${flag} needs a value: ${flag} DIR (the workspace directory)`);
}

/**
 * Global options given before the command (`prx --workspace DIR doctor`, `prx -w DIR gateway token list`) move
 * behind the command's own arguments, where every command parses them; a global option without its value is a usage
 * error saying so; with `commandFollows`, so is nothing after them. Light on purpose: main.ts calls it first.
 */
export function hoistGlobalOptions(
  argv: readonly string[],
  where = "prx",
  options: { commandFollows?: boolean } = {},
): string[] {
  const moved: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (WITH_VALUE.has(arg)) {
      const value = argv[i + 1];
      if (value === undefined || value === "" || value.startsWith("-")) throw missingValue(where, arg);
      moved.push(arg, value);
      i++;
    } else if (arg.startsWith("--workspace=") || (arg.startsWith("-w") && !arg.startsWith("--") && arg.length > 2)) {
      if (arg === "--workspace=") throw missingValue(where, "--workspace");
      moved.push(arg);
    } else {
      break;
    }
  }
  if (moved.length === 0) return [...argv];
  if (options.commandFollows && i === argv.length) {
    throw new PrxError("USAGE", `${where}: a command is missing after ${moved.join(" ")} (see ${where} --help)`);
  }
  return [...argv.slice(i), ...moved];
}
