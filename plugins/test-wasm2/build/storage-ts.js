// plugins/test-wasm2/src/storage-ts.ts
import kv from "prx:host/kv@0.1.0";

// plugins/test-wasm2/src/utf8.ts
function toBytes(text) {
  const binary = unescape(encodeURIComponent(text));
  const out = new Uint8Array(binary.length);
  for (let i = 0;i < binary.length; i++)
    out[i] = binary.charCodeAt(i);
  return out;
}
function fromBytes(bytes) {
  let binary = "";
  for (const b of bytes)
    binary += String.fromCharCode(b);
  return decodeURIComponent(escape(binary));
}

// plugins/test-wasm2/src/storage-ts.ts
var PREFIX = "m:";
function load(key) {
  const raw = kv.get(PREFIX + key);
  return raw ? JSON.parse(fromBytes(raw)) : null;
}
function all() {
  return kv.listKeys(PREFIX).map((k) => load(k.slice(PREFIX.length))).filter((e) => e !== null);
}
function nextSeq() {
  const raw = kv.get("seq");
  const n = (raw ? Number(fromBytes(raw)) : 0) + 1;
  kv.set("seq", toBytes(String(n)));
  return n;
}
function name() {
  return "ts-kv";
}
function storeMemory(key, content, category, sessionId) {
  const entry = { key, content, category, session: sessionId, seq: nextSeq() };
  kv.set(PREFIX + key, toBytes(JSON.stringify(entry)));
}
function recallMemory(query, limit, sessionId) {
  const words = query.toLowerCase().split(/[\s.,;:!?"'()[\]{}]+/).filter((w) => w.length > 0);
  const hits = all().filter((e) => sessionId === null || e.session === null || e.session === sessionId).map((e) => {
    const hay = `${e.key} ${e.content}`.toLowerCase();
    const score = words.filter((w) => hay.includes(w)).length;
    return { e, score };
  }).filter((h) => words.length === 0 || h.score > 0).sort((a, b) => b.score - a.score || b.e.seq - a.e.seq).slice(0, limit);
  return hits.map(({ e, score }) => ({
    id: `${PREFIX}${e.key}`,
    key: e.key,
    content: e.content,
    category: e.category,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, e.seq)).toISOString(),
    score: words.length ? score : null
  }));
}
function forgetMemory(key) {
  return kv.delete(PREFIX + key);
}
function countMemories() {
  return kv.listKeys(PREFIX).length;
}
function healthCheck() {
  return true;
}
var storageExports = { name, storeMemory, recallMemory, forgetMemory, countMemories, healthCheck };
export {
  storageExports
};
