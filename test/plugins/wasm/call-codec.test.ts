import { describe, expect, test } from "bun:test";
import { decodeCall, decodeResult, encodeCall, encodeResult } from "../../../src/plugins/wasm/sandbox/call-codec.ts";

describe("sandbox call codec", () => {
  test("a call with string arguments round-trips, whatever the arguments hold", () => {
    const args = ["inbound", '{"text":"a|b,c","n":1}', "", "é😀\u0000|,"];
    const text = encodeCall(7, 2, "process", args);
    expect(text).not.toBeNull();
    expect(decodeCall(text!)).toEqual({ id: 7, cap: 2, fn: "process", args });
    expect(decodeCall(encodeCall(1, 0, "cron-tick", [])!)).toEqual({ id: 1, cap: 0, fn: "cron-tick", args: [] });
  });

  test("calls that cannot take the string form fall back to objects (null)", () => {
    expect(encodeCall(1, 0, "recall", ["q", 5])).toBeNull();
    expect(encodeCall(1, 0, "put", [new Uint8Array([1])])).toBeNull();
    expect(encodeCall(1, 0, "odd,name", ["x"])).toBeNull();
    expect(encodeCall(1, 0, "odd|name", ["x"])).toBeNull();
  });

  test("malformed call strings are refused, not misread", () => {
    for (const bad of [
      "",
      "x1,0,f|",
      "c1,0|",
      "c,0,f|",
      "c1,,f|",
      "c1,0,f,3|ab",
      "c1,0,f,1|ab",
      "c1,0,f,-1|",
      "c1.5,0,f|",
      "c1,0,f",
    ]) {
      expect(decodeCall(bad)).toBeNull();
    }
  });

  test("a string result round-trips; other values fall back to objects", () => {
    const text = encodeResult(9, 12.25, '{"text":"r|,"}');
    expect(decodeResult(text!)).toEqual({ id: 9, execUs: 12.25, value: '{"text":"r|,"}' });
    expect(decodeResult(encodeResult(3, 0.5, "")!)).toEqual({ id: 3, execUs: 0.5, value: "" });
    expect(encodeResult(1, 1, { a: 1 })).toBeNull();
    expect(encodeResult(1, 1, null)).toBeNull();
    for (const bad of ["", "r", "r1|x", "r,1|x", "r1,|x", "rx,1|x", "c1,1|x", "r1,abc|x", "r1,1"]) {
      expect(decodeResult(bad)).toBeNull();
    }
  });
});
