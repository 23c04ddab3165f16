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

/**
 * Characters a terminal acts on instead of showing: C0 controls, DEL, C1 controls (U+0080-U+009F, which some
 * terminals read as ESC sequences), the bidirectional overrides, embeddings, isolates and marks (which reorder what
 * the operator reads), and the Unicode line and paragraph separators.
 */
const CONTROL = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same set less line feed and tab, for text printed over several lines. */
const CONTROL_BUT_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function shown(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * Stored or remote text (a message, a memory, a plugin's or a server's error) as the CLI may print it: every
 * character a terminal would act on is written visibly, ESC as `^[`, BEL as `^G`, DEL as `^?`, a C1 control or a
 * bidi override as `<U+202E>`. `multiline` keeps line feeds and tabs (message bodies); otherwise they are shown too,
 * so one record stays on one line. Applied whether or not stdout is a TTY: a log file or `less -R` replays it later.
 */
export function visible(text: string, options: { multiline?: boolean } = {}): string {
  return text.replace(options.multiline ? CONTROL_BUT_LINES : CONTROL, shown);
}

/** Characters JSON.stringify leaves raw that a terminal still acts on (it escapes only U+0000-U+001F). */
const JSON_RAW_CONTROL = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON.stringify for output that may reach a terminal: the same JSON value, with DEL, C1 controls and bidi
 * characters written as `\uXXXX` escapes as well, so no stored text acts on the terminal through `--json` either.
 */
export function terminalJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    JSON_RAW_CONTROL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
