/**
 * Colour on terminals: only on a TTY, and never when NO_COLOR is set to anything but "" (https://no-color.org).
 * Every coloured output of prx (chat, doctor) asks here.
 */
export function colorEnabled(
  stream: { isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return Boolean(stream.isTTY) && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

/** `text` in an SGR style (e.g. "31" red) when `on`, else unchanged. */
export function paint(on: boolean, code: string, text: string): string {
  return on ? `\x1b[${code}m${text}\x1b[0m` : text;
}
