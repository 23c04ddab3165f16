// plugins/test-wasm2/src/cron-count.ts
import kv from "prx:host/kv@0.1.0";
import log from "prx:host/log@0.1.0";

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

// plugins/test-wasm2/src/cron-count.ts
function run() {
  const previous = kv.get("runs");
  const n = (previous ? Number(fromBytes(previous)) : 0) + 1;
  kv.set("runs", toBytes(String(n)));
  log.log("info", `cron-count run ${n}`);
  return `run #${n}`;
}
var cronExports = { run };
export {
  cronExports
};
