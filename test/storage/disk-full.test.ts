/**
 * A full disk through the built binary: the workspace's database on a 4 MiB tmpfs filled to the last kilobytes. The
 * error says the disk is full and that nothing was lost; once space is freed, what was stored is there.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DISK_FULL_BELOW_BYTES } from "../../src/storage/sqlite/disk-full.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";

setDefaultTimeout(60_000);
const mountPoint = mkdtempSync(join(tmpdir(), "prx-full-disk-"));
let mounted = false;

beforeAll(async () => {
  await ensureBinary();
  // a small file system of its own (root can mount one; CI runs as root)
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint], { stderr: "pipe" });
  mounted = mount.exitCode === 0;
}, 300_000);
afterAll(() => {
  if (mounted) Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

test.skipIf(process.getuid?.() !== 0 && !process.env.CI)("a full disk is named as such, nothing stored is lost, and freeing space is enough", async () => {
  expect(mounted).toBe(true);
  const ws = join(mountPoint, "ws");
  expect((await runPrx(["memory", "store", "kept", "stored before the disk filled", "-w", ws])).code).toBe(0);
  const free = () => {
    const stats = statfsSync(mountPoint);
    return stats.bavail * stats.bsize;
  };
  const filler = join(mountPoint, "filler");
  writeFileSync(filler, new Uint8Array(free() - 4096));
  expect(free()).toBeLessThan(DISK_FULL_BELOW_BYTES);
  const stored = await runPrx(["memory", "store", "more", "x".repeat(20_000), "-w", ws]);
  expect(stored.code).toBe(1);
  expect(stored.stderr).toContain(`the disk holding ${join(ws, "data")} is full`);
  expect(stored.stderr).toContain("nothing already stored was lost");
  expect(stored.stderr).toContain("free some space on that disk");
  rmSync(filler);
  const listed = await runPrx(["memory", "list", "-w", ws]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain("kept");
});
