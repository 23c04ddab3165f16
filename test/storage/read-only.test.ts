/**
 * A workspace on a read-only file system (a remounted tmpfs), through the built binary: what is stored can still be
 * read; a write says the database is read-only.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, runPrx } from "../helpers/binary.ts";

setDefaultTimeout(60_000);
const mountPoint = mkdtempSync(join(tmpdir(), "prx-read-only-"));
let mounted = false;

beforeAll(async () => {
  await ensureBinary();
  mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint]).exitCode === 0;
}, 300_000);
afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

test.skipIf(process.getuid?.() !== 0 && !process.env.CI)("a read-only workspace is read; a write to it says why it fails", async () => {
  expect(mounted).toBe(true);
  const ws = join(mountPoint, "ws");
  expect((await runPrx(["memory", "store", "colour", "teal", "-w", ws])).code).toBe(0);
  expect(Bun.spawnSync(["mount", "-o", "remount,ro", mountPoint]).exitCode).toBe(0);
  const listed = await runPrx(["memory", "list", "-w", ws]);
  expect(listed.stderr).toBe("");
  expect(listed.stdout).toContain("colour");
  expect((await runPrx(["memory", "search", "teal", "-w", ws])).stdout).toContain("colour");
  expect((await runPrx(["sessions", "list", "-w", ws])).code).toBe(0);
  const write = await runPrx(["memory", "store", "more", "x", "-w", ws]);
  expect(write.code).toBe(1);
  expect(write.stderr).toContain("attempt to write a readonly database");
});
