/**
 * A channel process hands its binary's pages back at its first quiet periods only: the mappings of the executable
 * read from /proc/self/maps, each advised MADV_PAGEOUT through an injected madvise.
 */
import { expect, test } from "bun:test";
import { binaryPageout, CHANNEL_PAGEOUT_QUIET_PERIODS, libcMadvise, MADV_PAGEOUT, mappingsOf, type Mapping } from "../../src/boot/channel-pageout.ts";

const MAPS = [
  "00200000-01000000 r--p 00000000 fd:01 42 /usr/local/bin/prx",
  "01000000-05000000 r-xp 00e00000 fd:01 42 /usr/local/bin/prx",
  "05000000-05010000 rw-p 04e00000 fd:01 42 /usr/local/bin/prx",
  "05010000-06000000 rw-p 00000000 00:00 0 ",
  "7f0000000000-7f0000200000 r-xp 00000000 fd:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6",
  "7f0000300000-7f0000400000 r--p 00000000 fd:01 99 /usr/local/bin/prx-other",
  "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]",
].join("\n");

test("the executable's mappings are read from maps: its own path only, with their bounds", () => {
  expect(mappingsOf(MAPS, "/usr/local/bin/prx")).toEqual([
    { start: 0x200000, length: 0xe00000, perms: "r--p", path: "/usr/local/bin/prx" },
    { start: 0x1000000, length: 0x4000000, perms: "r-xp", path: "/usr/local/bin/prx" },
    { start: 0x5000000, length: 0x10000, perms: "rw-p", path: "/usr/local/bin/prx" },
  ]);
  expect(mappingsOf(MAPS, "/nowhere")).toEqual([]);
});

test(`the first ${CHANNEL_PAGEOUT_QUIET_PERIODS} quiet periods hand every mapping back; the one after them does not`, async () => {
  const mappings: Mapping[] = mappingsOf(MAPS, "/usr/local/bin/prx");
  const advised: Array<[number, number, number]> = [];
  let loads = 0;
  const pageout = binaryPageout({
    mappings: () => mappings,
    madvise: async () => (loads++, (start, length, advice) => (advised.push([start, length, advice]), true)),
  });
  for (let i = 0; i < CHANNEL_PAGEOUT_QUIET_PERIODS; i++) {
    await pageout.quiet();
    expect(advised).toHaveLength(mappings.length * (i + 1));
  }
  expect(advised.slice(0, mappings.length)).toEqual(mappings.map((m) => [m.start, m.length, MADV_PAGEOUT]));
  await pageout.quiet();
  expect(advised).toHaveLength(mappings.length * CHANNEL_PAGEOUT_QUIET_PERIODS);
  // the FFI loads once
  expect(loads).toBe(1);
});

test("without a madvise (no libc through bun:ffi, not Linux) a quiet period does nothing and does not fail", async () => {
  let read = 0;
  const pageout = binaryPageout({ mappings: () => (read++, []), madvise: async () => null });
  await pageout.quiet();
  expect(read).toBe(0);
});

test("on this machine libc's madvise, through bun:ffi, takes the advice for the running executable's mappings", async () => {
  if (process.platform !== "linux") return;
  const { readFileSync, readlinkSync } = await import("node:fs");
  const own = mappingsOf(readFileSync("/proc/self/maps", "utf8"), readlinkSync("/proc/self/exe"));
  expect(own.length).toBeGreaterThan(0);
  const madvise = await libcMadvise();
  expect(madvise).not.toBeNull();
  expect(own.map((m) => madvise!(m.start, m.length, MADV_PAGEOUT))).toEqual(own.map(() => true));
});
