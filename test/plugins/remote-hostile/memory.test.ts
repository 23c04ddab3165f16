/** `[resources] max_memory_mb` of remote plugins: measured in both transports, enforced by killing and restarting. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";
import { parseManifest } from "../../../src/plugins/manifest.ts";
import { DEFAULT_MAX_MEMORY_MB } from "../../../src/plugins/manifest.ts";
import { REMOTE_DEFAULT_MAX_MEMORY_MB } from "../../../src/plugins/remote/limits.ts";
import { overCap } from "../../../src/plugins/remote/limits.ts";
import { startHostile, type Hostile, type Transport } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";

const MiB = 1024 * 1024;
const level = getLogLevel();
beforeAll(() => setLogLevel("silent"));
afterAll(() => setLogLevel(level));
const running: Hostile[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

async function start(...args: Parameters<typeof startHostile>): Promise<Hostile> {
  const h = await startHostile(...args);
  running.push(h);
  return h;
}

test("a plugin may use exactly its max_memory_mb; one byte more is over", () => {
  expect(overCap(64 * MiB, 64)).toBe(false);
  expect(overCap(64 * MiB + 1, 64)).toBe(true);
});

test(`a remote plugin's max_memory_mb defaults to ${REMOTE_DEFAULT_MAX_MEMORY_MB}, a wasm plugin's stays ${DEFAULT_MAX_MEMORY_MB}`, () => {
  const head = '[plugin]\nname = "p"\nversion = "1.0.0"\n';
  const remote = parseManifest(`${head}runtime = "remote"\n[remote]\nentry = "w.ts"\n`).manifest;
  expect(remote.resources.max_memory_mb).toBe(REMOTE_DEFAULT_MAX_MEMORY_MB);
  expect(parseManifest(head).manifest.resources.max_memory_mb).toBe(DEFAULT_MAX_MEMORY_MB);
  const set = parseManifest(`${head}runtime = "remote"\n[resources]\nmax_memory_mb = 96\n[remote]\nentry = "w.ts"\n`);
  expect(set.manifest.resources.max_memory_mb).toBe(96);
});

/** A subprocess's cap is its whole RSS (Bun itself is ~50 MB of it); a Worker's is its own JS heap. */
const CAPS: Record<Transport, number> = { worker: 64, process: 160 };

describe.each(["worker", "process"] as Transport[])("max_memory_mb over %s", (transport) => {
  test("a plugin holding more than its cap is killed, its call fails naming the cap, and it is restarted", async () => {
    const cap = CAPS[transport];
    const h = await start(transport, { maxMemoryMb: cap });
    const hog = await h.act("HOG", { mb: 1024, step: 16 });
    expect(hog.success).toBe(false);
    expect(hog.error).toContain(`was killed during action action:HOG: it used`);
    expect(hog.error).toContain(`over its [resources] max_memory_mb = ${cap}`);
    await h.handle.ready();
    const status = h.handle.status();
    expect(status).toMatchObject({ state: "ready", restarts: 1, maxMemoryMb: cap });
    expect(status.lastError).toContain(`max_memory_mb = ${cap}`);
    expect((await h.act("NOOP")).output).toBe("ok");
  }, 60_000);

  test("memory taken by a call that finished is measured right after it, not only by the timer", async () => {
    const cap = CAPS[transport];
    // a timer that never fires within the test: only the check after the call can see the memory
    const h = await start(transport, { maxMemoryMb: cap, memoryCheckMs: 600_000 });
    expect((await h.act("HOG", { mb: cap + 64, step: 16, sync: true })).output).toBe(`held ${cap + 64} MB`);
    await waitFor(() => h.handle.status().restarts === 1, "the restart after the kill", 20_000);
    expect(h.handle.status().lastError).toContain(`max_memory_mb = ${cap}`);
  }, 60_000);
});

test("a Worker allocating without ever yielding (no reports) is measured by the process's growth and killed", async () => {
  const h = await start("worker", { maxMemoryMb: 64, memoryCheckMs: 50, memoryStaleMs: 300 });
  const hog = await h.act("HOG", { mb: 512, step: 16, sync: true, spin: 20_000 });
  expect(hog.success).toBe(false);
  expect(hog.error).toContain("process RSS growth while the Worker did not report");
  await h.handle.ready();
  expect((await h.act("NOOP")).output).toBe("ok");
}, 60_000);

test("the host's RSS returns to within 50 MB of its baseline after a Worker over its cap is killed", async () => {
  const h = await start("worker", { maxMemoryMb: 256 });
  await h.act("NOOP");
  Bun.gc(true);
  const baseline = process.memoryUsage.rss();
  const hog = await h.act("HOG", { mb: 1024, step: 32 });
  expect(hog.error).toContain("max_memory_mb = 256");
  await h.handle.ready();
  let rss = Number.POSITIVE_INFINITY;
  await waitFor(
    () => {
      Bun.gc(true);
      rss = process.memoryUsage.rss();
      return rss - baseline < 50 * MiB;
    },
    "RSS back within 50 MB of the baseline",
    10_000,
  );
  expect(rss - baseline).toBeLessThan(50 * MiB);
}, 60_000);
