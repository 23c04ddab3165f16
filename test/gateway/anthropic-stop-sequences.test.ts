import { describe, expect, test } from "bun:test";
import { applyStops, StopScanner } from "../../src/gateway/anthropic/stop-sequences.ts";

/** Feed `pieces` through a scanner as a stream would: what the client sees, and the stop met. */
function streamed(pieces: string[], stops: string[]): { shown: string; stopped: string | null } {
  const scanner = new StopScanner(stops);
  let shown = pieces.map((piece) => scanner.push(piece)).join("");
  if (scanner.stopped === null) shown += scanner.flush();
  return { shown, stopped: scanner.stopped };
}

describe("stop sequences", () => {
  test("a stop split across deltas is caught, and nothing of it is shown", () => {
    expect(streamed(["hello EN", "D of it"], ["END"])).toEqual({ shown: "hello ", stopped: "END" });
    expect(streamed(["a", "b", "E", "N", "D", "c"], ["END"])).toEqual({ shown: "ab", stopped: "END" });
  });

  test("the earliest of several stops wins; text without one comes through whole", () => {
    expect(streamed(["x STOP y END"], ["END", "STOP"])).toEqual({ shown: "x ", stopped: "STOP" });
    expect(streamed(["EN", "no stop here E"], ["END"])).toEqual({ shown: "ENno stop here E", stopped: null });
  });

  test("text held back while a stop could begin is let through once it cannot", () => {
    const scanner = new StopScanner(["END"]);
    expect(scanner.push("abcE")).toBe("abc");
    expect(scanner.push("N")).toBe("");
    expect(scanner.push("x")).toBe("ENx");
    expect(scanner.push("yEN")).toBe("y");
    expect(scanner.flush()).toBe("EN");
  });

  test("applyStops: the whole text at once", () => {
    expect(applyStops("one two STOP three", ["STOP"])).toEqual({ text: "one two ", stopped: "STOP" });
    expect(applyStops("plain", ["STOP"])).toEqual({ text: "plain", stopped: null });
    expect(applyStops("plain", undefined)).toEqual({ text: "plain", stopped: null });
  });
});
