import { usageError } from "./args.ts";

/** `--since`: an ISO time, or a duration back from `now` (30s, 30m, 12h, 7d); a bad one is the command's usage error. */
export function sinceOf(command: string, raw: string, now: number): number {
  const back = /^(\d+)([smhd])$/.exec(raw);
  if (back) return now - Number(back[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[back[2] as "s" | "m" | "h" | "d"];
  const at = Date.parse(raw);
  if (Number.isNaN(at)) throw usageError(`${command}: --since takes an ISO time or a duration like 30m, 12h, 7d; got '${raw}'`);
  return at;
}
