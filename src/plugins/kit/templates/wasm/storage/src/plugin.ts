// __PLUGIN_NAME__: a memory backend. Memories are kept in kv under "m:<key>"; recall ranks them by how many of the
// query's words they contain.
import { defineStorage, kv, type MemoryEntry } from "@prx/kit";

const PREFIX = "m:";

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 2);
}

export const storageExports = defineStorage({
  name: "__PLUGIN_NAME__",
  store({ key, content, category }) {
    const entry: MemoryEntry = { id: key, key, content, category, timestamp: new Date().toISOString() };
    kv.setJson(PREFIX + key, entry);
  },
  recall(query, limit) {
    const wanted = words(query);
    return kv
      .keys(PREFIX)
      .map((key) => kv.getJson<MemoryEntry>(key)!)
      .map((entry) => ({ ...entry, score: wanted.filter((word) => entry.content.toLowerCase().includes(word)).length }))
      .filter((entry) => entry.score > 0 || wanted.length === 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  },
  forget: (key) => kv.delete(PREFIX + key),
  count: () => kv.keys(PREFIX).length,
});
