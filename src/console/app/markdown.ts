import { escapeHtml, highlight } from "./highlight.ts";

/**
 * Markdown for chat replies, written small: fenced code (highlighted), headings, lists, block quotes, rules,
 * paragraphs, and inline code, bold, italic, strikethrough and links. The text is escaped before any markup is
 * added, and only http(s) and mailto links are made, so a reply can never inject HTML.
 */
function inline(text: string): string {
  const codes: string[] = [];
  let out = escapeHtml(text).replace(/`([^`\n]+)`/g, (_, code: string) => {
    codes.push(code);
    return `\u0000${codes.length - 1}\u0000`;
  });
  out = out
    .replace(/\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)/g, '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>')
    .replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~([^~\n]+)~~/g, "<del>$1</del>");
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => `<code>${codes[Number(i)]}</code>`);
}

function fence(lang: string, lines: string[]): string {
  const label = lang ? `<span class="lang">${escapeHtml(lang)}</span>` : "";
  return `<pre class="code">${label}<code>${highlight(lines.join("\n"), lang)}</code></pre>`;
}

export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const html: string[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flush = () => {
    if (paragraph.length) html.push(`<p>${paragraph.map(inline).join("<br>")}</p>`);
    paragraph = [];
    if (list) html.push(`<${list.ordered ? "ol" : "ul"}>${list.items.map((item) => `<li>${inline(item)}</li>`).join("")}</${list.ordered ? "ol" : "ul"}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = /^\s*(```+|~~~+)\s*([\w+-]*)/.exec(line);
    if (open) {
      flush();
      const body: string[] = [];
      const marker = open[1]!;
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(marker); i++) body.push(lines[i]!);
      html.push(fence(open[2] ?? "", body)); // an unclosed fence (still streaming) runs to the end
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]!.length;
      html.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      html.push("<hr>");
    } else if (line.startsWith(">")) {
      flush();
      html.push(`<blockquote>${inline(line.replace(/^>\s?/, ""))}</blockquote>`);
    } else if (item) {
      const ordered = /\d/.test(item[1]!);
      if (paragraph.length || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(item[2]!);
    } else if (line.trim() === "") flush();
    else {
      if (list) flush();
      paragraph.push(line);
    }
  }
  flush();
  return html.join("");
}
