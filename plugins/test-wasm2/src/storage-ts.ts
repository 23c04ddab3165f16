// Storage "ts-kv": a memory backend kept in the plugin's kv, one JSON entry per key under "m:<key>".
// recall returns entries whose key or content contains a word of the query (all for ""), best then newest first.
import kv from "prx:host/kv@0.1.0";
import { fromBytes, toBytes } from "./utf8.ts";

interface Entry {
  key: string;
  content: string;
  category: string;
  session: string | null;
  seq: number;
}

const PREFIX = "m:";

function load(key: string): Entry | null {
  const raw = kv.get(PREFIX + key);
  return raw ? (JSON.parse(fromBytes(raw)) as Entry) : null;
}

function all(): Entry[] {
  return kv
    .listKeys(PREFIX)
    .map((k) => load(k.slice(PREFIX.length))!)
    .filter((e) => e !== null);
}

function nextSeq(): number {
  const raw = kv.get("seq");
  const n = (raw ? Number(fromBytes(raw)) : 0) + 1;
  kv.set("seq", toBytes(String(n)));
  return n;
}

function name(): string {
  return "ts-kv";
}

function storeMemory(key: string, content: string, category: string, sessionId: string | null): void {
  const entry: Entry = { key, content, category, session: sessionId, seq: nextSeq() };
  kv.set(PREFIX + key, toBytes(JSON.stringify(entry)));
}

function recallMemory(query: string, limit: number, sessionId: string | null) {
  const words = query
    .toLowerCase()
    .split(/[\s.,;:!?"'()[\]{}]+/)
    .filter((w) => w.length > 0);
  const hits = all()
    .filter((e) => sessionId === null || e.session === null || e.session === sessionId)
    .map((e) => {
      const hay = `${e.key} ${e.content}`.toLowerCase();
      const score = words.filter((w) => hay.includes(w)).length;
      return { e, score };
    })
    .filter((h) => words.length === 0 || h.score > 0)
    .sort((a, b) => b.score - a.score || b.e.seq - a.e.seq)
    .slice(0, limit);
  return hits.map(({ e, score }) => ({
    id: `${PREFIX}${e.key}`,
    key: e.key,
    content: e.content,
    category: e.category,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, e.seq)).toISOString(),
    score: words.length ? score : null,
  }));
}

function forgetMemory(key: string): boolean {
  return kv.delete(PREFIX + key);
}

function countMemories(): number {
  return kv.listKeys(PREFIX).length;
}

function healthCheck(): boolean {
  return true;
}

// The world exports the interface prx:plugin/storage-exports@0.1.0: its functions are members of this object.
export const storageExports = { name, storeMemory, recallMemory, forgetMemory, countMemories, healthCheck };
