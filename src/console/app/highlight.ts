/**
 * A small code highlighter: comments, strings, numbers and keywords of the usual C-like, shell, Python and JSON
 * code, as spans with classes the stylesheet colours. Everything is escaped first; only spans are added.
 */
const KEYWORDS = new Set(
  (
    "abstract as async await break case catch class const continue def default del do elif else enum export extends " +
    "false fi final finally fn for from func function go if impl import in interface is let match mod module mut new " +
    "nil none null package private protected pub public return self static struct super switch then this throw trait " +
    "true try type typeof undefined use var void while with yield echo local esac done not and or lambda pass raise"
  ).split(" "),
);

const TOKEN = /(\/\/[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|(\b\d[\d_.]*(?:e[+-]?\d+)?\b)|([A-Za-z_$][\w$]*)/g;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `#` starts a comment only in languages that use it (shell, Python, YAML, TOML, Ruby...). */
function hashComments(lang: string): boolean {
  return /^(sh|bash|zsh|shell|console|py|python|rb|ruby|ya?ml|toml|conf|ini|r|perl|make(file)?|dockerfile)$/i.test(lang);
}

export function highlight(code: string, lang = ""): string {
  const hash = hashComments(lang);
  let out = "";
  let last = 0;
  for (const m of code.matchAll(TOKEN)) {
    const [text, comment, string, number, word] = m;
    const at = m.index ?? 0;
    if (comment && comment.startsWith("#") && !hash) continue;
    out += escapeHtml(code.slice(last, at));
    last = at + text.length;
    const cls = comment ? "c" : string ? "s" : number ? "n" : word && KEYWORDS.has(word) ? "k" : "";
    out += cls ? `<span class="hl-${cls}">${escapeHtml(text)}</span>` : escapeHtml(text);
  }
  return out + escapeHtml(code.slice(last));
}
