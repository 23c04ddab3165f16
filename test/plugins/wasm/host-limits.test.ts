import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HostError } from "../../../src/plugins/wasm/host/context.ts";
import { KvStore } from "../../../src/plugins/wasm/host/kv.ts";
import { truncateLog } from "../../../src/plugins/wasm/host/log.ts";
import { MAX_KV_KEY_BYTES, MAX_LOG_MESSAGE_CHARS } from "../../../src/plugins/wasm/index.ts";
import { type TestHost, makeHost, removeDir } from "./helpers.ts";

let t: TestHost;
let kv: KvStore;
beforeAll(() => {
  t = makeHost();
  kv = new KvStore(t.host.db.filename, "limits", 1);
});
afterAll(() => {
  kv.close();
  t.close();
  removeDir(t.root);
});

describe("host function limits", () => {
  test(`kv keys of ${MAX_KV_KEY_BYTES} bytes are accepted, one more byte is an error`, () => {
    const key = "k".repeat(MAX_KV_KEY_BYTES);
    kv.set(key, new Uint8Array([1]));
    expect(kv.get(key)).toEqual(new Uint8Array([1]));
    expect(() => kv.set(key + "k", new Uint8Array([1]))).toThrow(HostError);
    expect(() => kv.set("", new Uint8Array([1]))).toThrow("must not be empty");
  });

  test("kv list-keys filters by prefix (LIKE wildcards are literal) and delete reports whether a key existed", () => {
    kv.set("a%1", new Uint8Array([1]));
    kv.set("ab", new Uint8Array([2]));
    expect(kv.listKeys("a%")).toEqual(["a%1"]);
    expect(kv.delete("ab")).toBe(true);
    expect(kv.delete("ab")).toBe(false);
  });

  test(`log messages up to ${MAX_LOG_MESSAGE_CHARS} characters pass whole, longer ones are truncated`, () => {
    const exact = "x".repeat(MAX_LOG_MESSAGE_CHARS);
    expect(truncateLog(exact)).toBe(exact);
    expect(truncateLog(exact + "y")).toBe(`${exact}…(truncated)`);
  });
});
