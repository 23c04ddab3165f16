/**
 * Telegram MarkdownV2 (https://core.telegram.org/bots/api#markdownv2-style): code fences and inline code are kept as
 * code; every other special character is escaped, so the text shows as written. When Telegram still refuses to parse
 * it ("can't parse entities"), the channel sends the part as plain text.
 */
const SPECIAL = /[_*[\]()~`>#+\-=|{}.!\\]/g;
const CODE_SPECIAL = /[`\\]/g;

export function escapeMarkdownV2(text: string): string {
  return text.replace(SPECIAL, (c) => `\\${c}`);
}

export function toMarkdownV2(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("```", i)) {
      const end = text.indexOf("```", i + 3);
      if (end < 0) break;
      const inner = text.slice(i + 3, end);
      const newline = inner.indexOf("\n");
      const lang = newline >= 0 && /^[A-Za-z0-9_+-]*$/.test(inner.slice(0, newline)) ? inner.slice(0, newline) : "";
      const code = lang || newline === 0 ? inner.slice(newline + 1) : inner;
      out += "```" + lang + "\n" + code.replace(CODE_SPECIAL, (c) => `\\${c}`) + "```";
      i = end + 3;
      continue;
    }
    if (text[i] === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i + 1 && !text.slice(i + 1, end).includes("\n")) {
        out += "`" + text.slice(i + 1, end).replace(/\\/g, "\\\\") + "`";
        i = end + 1;
        continue;
      }
    }
    const next = nextCode(text, i + 1);
    out += escapeMarkdownV2(text.slice(i, next));
    i = next;
  }
  return out + escapeMarkdownV2(text.slice(i));
}

function nextCode(text: string, from: number): number {
  const found = text.indexOf("`", from);
  return found < 0 ? text.length : found;
}
