/** Reading the replica registry: which entries count, which are removed, and that a bad one is never an error. */
import { describe, expect, test } from "bun:test";
import { FABRIC_REPLICA_TTL_MS, isAnnouncementLive, readRegistry } from "../../../src/plugins/fabric/index.ts";

const now = 1_000_000_000;
const entry = (at: number, patterns: string[] = ["a.*"]) => JSON.stringify({ at, patterns });

describe("readRegistry", () => {
  test("keeps entries up to twice the TTL old and marks older ones stale, at the boundary", () => {
    const { entries, stale } = readRegistry({ fresh: entry(now), edge: entry(now - 2 * FABRIC_REPLICA_TTL_MS), past: entry(now - 2 * FABRIC_REPLICA_TTL_MS - 1) }, now);
    expect([...entries.keys()].sort()).toEqual(["edge", "fresh"]);
    expect(entries.get("fresh")).toEqual({ at: now, patterns: ["a.*"] });
    expect(stale).toEqual(["past"]);
  });

  test("an entry that is not JSON or not an announcement is stale, and the others are still read", () => {
    const { entries, stale } = readRegistry({ good: entry(now), text: "{not json", shape: JSON.stringify({ at: "yesterday" }) }, now);
    expect([...entries.keys()]).toEqual(["good"]);
    expect(stale.sort()).toEqual(["shape", "text"]);
  });

  test("reads the flat field/value form (RESP2) as the object form", () => {
    const flat = ["r1", entry(now - 5), "r2", entry(now - 6, [])];
    const { entries, stale } = readRegistry(flat, now);
    expect(entries.get("r1")).toEqual({ at: now - 5, patterns: ["a.*"] });
    expect(entries.get("r2")).toEqual({ at: now - 6, patterns: [] });
    expect(stale).toEqual([]);
  });
});

test("an announcement counts for FABRIC_REPLICA_TTL_MS and not one millisecond more", () => {
  expect(isAnnouncementLive(now - FABRIC_REPLICA_TTL_MS, now)).toBe(true);
  expect(isAnnouncementLive(now - FABRIC_REPLICA_TTL_MS - 1, now)).toBe(false);
});
