import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { JsonStandIns } from "../../src/core/json/index.ts";

describe("JSON stand-ins", () => {
  test("the filled document equals JSON.stringify of the document holding the values", () => {
    const first = `data:image/png;base64,${Buffer.from("first image").toString("base64")}`;
    const second = Buffer.from("second").toString("base64");
    const standIns = new JsonStandIns();
    const withStandIns = {
      text: "look",
      parts: [{ url: standIns.stand("data:image/png;base64,", first.slice(22)) }, { data: standIns.stand(second), after: "x" }],
    };
    const plain = { text: "look", parts: [{ url: first }, { data: second, after: "x" }] };
    expect(standIns.fill(JSON.stringify(withStandIns))).toBe(JSON.stringify(plain));
  });

  test("text that looks like a stand-in is left as it is", () => {
    const standIns = new JsonStandIns();
    const value = standIns.stand("QUJD");
    const lookalike = "\u0000prx-00000000-0\u0000";
    const filled = standIns.fill(JSON.stringify({ user: lookalike, data: value }));
    expect(JSON.parse(filled)).toEqual({ user: lookalike, data: "QUJD" });
  });

  test("a document without its stand-in is an internal error, not a wrong body", () => {
    const standIns = new JsonStandIns();
    standIns.stand("QUJD");
    const error = (() => {
      try {
        standIns.fill("{}");
      } catch (caught) {
        return caught;
      }
    })();
    expect(isPrxError(error, "INTERNAL")).toBe(true);
  });

  test("the parts of the filled document: the text between stand-ins and each value's pieces", () => {
    const standIns = new JsonStandIns();
    expect(standIns.empty).toBe(true);
    const document = JSON.stringify({ a: "é", url: standIns.stand("data:image/png;base64,", "QUJD"), b: 1 });
    expect(standIns.empty).toBe(false);
    expect(standIns.parts(document)).toEqual(['{"a":"é","url":"', "data:image/png;base64,", "QUJD", '","b":1}']);
  });

  test("no stand-ins: the document is returned as it is", () => {
    expect(new JsonStandIns().fill('{"a":1}')).toBe('{"a":1}');
  });
});
