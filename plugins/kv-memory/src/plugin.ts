// kv-memory: "m:<key>" holds an entry (JSON), "w:<word>:<key>" marks that the entry contains the word. Recall
// scores an entry by the share of the query's words it contains, best first, then newest first.
import { config, defineStorage, kv, type MemoryEntry } from "@prx/kit";

interface Stored extends MemoryEntry {
  session: string | null;
}

const ENTRY = "m:";
const entryKey = (key: string) => `${ENTRY}${key}`;

function words(text: string): string[] {
  const min = config.number("min_word_length", 3);
  return [...new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= min))];
}

function unindex(entry: Stored): void {
  for (const word of words(entry.content)) kv.delete(`w:${word}:${entry.key}`);
}

function forget(key: string): boolean {
  const entry = kv.getJson<Stored>(entryKey(key));
  if (!entry) return false;
  unindex(entry);
  return kv.delete(entryKey(key));
}

export const storageExports = defineStorage({
  name: "kv-memory",
  store({ key, content, category, sessionId }) {
    forget(key);
    const entry: Stored = { id: key, key, content, category, timestamp: new Date().toISOString(), session: sessionId };
    kv.setJson(entryKey(key), entry);
    for (const word of words(content)) kv.set(`w:${word}:${key}`, "");
  },
  recall(query, limit, sessionId) {
    const wanted = words(query);
    const hits = new Map<string, number>();
    if (wanted.length === 0) for (const k of kv.keys(ENTRY)) hits.set(k.slice(ENTRY.length), 0);
    for (const word of wanted) {
      const prefix = `w:${word}:`;
      for (const k of kv.keys(prefix)) hits.set(k.slice(prefix.length), (hits.get(k.slice(prefix.length)) ?? 0) + 1);
    }
    const found: MemoryEntry[] = [];
    for (const [key, n] of hits) {
      const entry = kv.getJson<Stored>(entryKey(key));
      if (!entry || (sessionId !== null && entry.session !== null && entry.session !== sessionId)) continue;
      const { session: _session, ...plain } = entry;
      found.push({ ...plain, score: wanted.length === 0 ? 0 : n / wanted.length });
    }
    return found
      .sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || (a.timestamp < b.timestamp ? 1 : -1))
      .slice(0, limit);
  },
  forget,
  count: () => kv.keys(ENTRY).length,
});
