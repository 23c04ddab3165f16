// plugins/test-wasm2/src/hook-rec.ts
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

// plugins/test-wasm2/src/hook-rec.ts
var MAX_TOPICS = 500;
function onEvent(event, payloadJson) {
  const previous = kv.get("topics");
  const lines = previous ? fromBytes(previous).split(`
`).filter((line) => line.length > 0) : [];
  lines.push(event);
  kv.set("topics", toBytes(lines.slice(-MAX_TOPICS).join(`
`) + `
`));
  kv.set("last-payload", toBytes(payloadJson));
}
var hookExports = { onEvent };
export {
  hookExports
};
