/**
 * Split a reply at a platform's message limit on the most natural boundary that fits: a paragraph, then a line, then
 * a sentence, then a word; a hard cut only when a single word is longer than the limit. A code fence cut in two is
 * closed at the end of one part and reopened (with its language) at the start of the next, so each part renders.
 */
const FENCE_CLOSE = "\n```";

function isFenceLine(line: string): boolean {
  return /^\s*```/.test(line);
}

/** The fence left open at the end of `text` (its opening line), given the one open at its start. */
function openFenceAfter(text: string, open: string | null): string | null {
  let state = open;
  for (const line of text.split("\n")) {
    if (!isFenceLine(line)) continue;
    state = state === null ? line.trim() : null;
  }
  return state;
}

/** The best cut position in `window` (a prefix of the rest): the end of the last boundary found. */
function cutPosition(window: string, atEnd: boolean): number {
  if (atEnd) return window.length;
  const min = Math.floor(window.length / 3);
  const patterns = [/\n\s*\n/g, /\n/g, /[.!?…](?=\s)/g, /\s/g];
  for (const pattern of patterns) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index! + match[0].length;
      if (end >= min) best = end;
    }
    if (best > 0) return best;
  }
  // one word longer than the limit: cut it, never between the halves of a surrogate pair
  let cut = window.length;
  const code = window.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return cut;
}

export function splitMessage(text: string, max: number): string[] {
  if (max < 16) throw new RangeError(`splitMessage: a limit of ${max} characters is too small to split on boundaries`);
  const parts: string[] = [];
  let rest = text;
  let fence: string | null = null;
  while (rest.length > 0) {
    const prefix = fence === null ? "" : fence + "\n";
    if (prefix.length + rest.length <= max) {
      parts.push(prefix + rest);
      break;
    }
    const budget = max - prefix.length - FENCE_CLOSE.length;
    const cut = cutPosition(rest.slice(0, budget), false);
    const body = rest.slice(0, cut).replace(/\s+$/, "");
    const after = openFenceAfter(body, fence);
    if (body.trim().length > 0) parts.push(prefix + body + (after === null ? "" : FENCE_CLOSE));
    fence = after;
    rest = rest.slice(cut);
    rest = fence === null ? rest.replace(/^\s+/, "") : rest.replace(/^\n+/, "");
  }
  return parts.filter((part) => part.trim().length > 0);
}
