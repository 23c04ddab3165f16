/** IRC lines (RFC 1459 / RFC 2812 section 2.3.1, with IRCv3 message tags skipped): `[@tags] [:prefix] COMMAND params [:trailing]`. */

export interface IrcLine {
  /** `nick!user@host` or a server name; "" when absent. */
  prefix: string;
  command: string;
  params: string[];
}

export function parseIrcLine(raw: string): IrcLine | undefined {
  let rest = raw;
  if (rest.startsWith("@")) {
    const space = rest.indexOf(" ");
    if (space < 0) return undefined;
    rest = rest.slice(space + 1).trimStart();
  }
  let prefix = "";
  if (rest.startsWith(":")) {
    const space = rest.indexOf(" ");
    if (space < 0) return undefined;
    prefix = rest.slice(1, space);
    rest = rest.slice(space + 1).trimStart();
  }
  const params: string[] = [];
  let command = "";
  while (rest.length > 0) {
    if (rest.startsWith(":") && command) {
      params.push(rest.slice(1));
      break;
    }
    const space = rest.indexOf(" ");
    const word = space < 0 ? rest : rest.slice(0, space);
    if (!command) command = word.toUpperCase();
    else params.push(word);
    rest = space < 0 ? "" : rest.slice(space + 1).trimStart();
  }
  return command ? { prefix, command, params } : undefined;
}

/** The nick of a `nick!user@host` prefix. */
export function nickOf(prefix: string): string {
  return prefix.split("!")[0] ?? prefix;
}

/** IRC's case mapping (rfc1459): A-Z [ ] \ ~ are the upper case of a-z { } | ^. */
export function ircLower(text: string): string {
  return text.toLowerCase().replace(/[[\]\\~]/g, (c) => ({ "[": "{", "]": "}", "\\": "|", "~": "^" })[c]!);
}

/** Text as lines of at most `maxBytes` UTF-8 bytes, cut between code points (IRC carries no line breaks). */
export function ircLines(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    // a lone CR or NUL would end or corrupt the line on the wire
    let current = "";
    let bytes = 0;
    for (const ch of line.replace(/[\r\0]/g, "")) {
      const size = Buffer.byteLength(ch);
      if (bytes + size > maxBytes) {
        out.push(current);
        current = "";
        bytes = 0;
      }
      current += ch;
      bytes += size;
    }
    if (current.trim()) out.push(current);
  }
  return out;
}
