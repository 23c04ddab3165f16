import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tmpdir } from "node:os";

/** The subprocess side reads stdin from a socketpair (Bun.spawn's pipes) or from any other stream, completely. */
const SCRIPT = join(import.meta.dir, "fixtures/stdin-count.ts");
const SIZE = 3 * 1024 * 1024 + 17; // several pipe buffers, not a round number

async function result(proc: { exited: Promise<number>; stdout: ReadableStream; stderr: ReadableStream }) {
  expect(await proc.exited).toBe(0);
  expect(await new Response(proc.stderr).text()).toBe("");
  return JSON.parse(await new Response(proc.stdout).text()) as { kind: string; bytes: number; ends: number };
}

describe("readStdin", () => {
  test("a socketpair stdin (Bun.spawn pipe) is read to its end, once", async () => {
    const proc = Bun.spawn([process.execPath, SCRIPT], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const chunk = new Uint8Array(64 * 1024).fill(120);
    for (let sent = 0; sent < SIZE; sent += chunk.length) proc.stdin.write(chunk.subarray(0, Math.min(chunk.length, SIZE - sent)));
    await proc.stdin.end();
    expect(await result(proc)).toEqual({ kind: "socket", bytes: SIZE, ends: 1 });
  });

  test("a pipe from a shell is read through the stream fallback", async () => {
    const proc = Bun.spawn(["sh", "-c", `head -c ${SIZE} /dev/zero | "${process.execPath}" "${SCRIPT}"`], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await result(proc)).toEqual({ kind: "stream", bytes: SIZE, ends: 1 });
  });

  test("a file as stdin is read through the stream fallback", async () => {
    const path = join(tmpdir(), `prx-stdin-${process.pid}.bin`);
    await Bun.write(path, new Uint8Array(SIZE));
    const proc = Bun.spawn([process.execPath, SCRIPT], { stdin: Bun.file(path), stdout: "pipe", stderr: "pipe" });
    try {
      expect(await result(proc)).toEqual({ kind: "stream", bytes: SIZE, ends: 1 });
    } finally {
      await Bun.file(path).delete();
    }
  });
});
