import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heapProbeEnv, probeHeap } from "./heap-probe-client.ts";

describe("heap probe (benchmark harness)", () => {
  test.if(process.platform === "linux")("a child started with the probe preloaded reports its heap on each request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-heap-probe-"));
    const file = join(dir, "heap.jsonl");
    // keeps 20,000 objects alive between the two probes: the second report must count them
    const child = Bun.spawn([process.execPath, "-e", "globalThis.kept = []; process.stdin.on('data', () => { for (let i = 0; i < 20000; i++) globalThis.kept.push({ i }); console.log('grown'); }); console.log('ready');"], {
      env: { ...process.env, ...heapProbeEnv(file) },
      stdin: "pipe",
      stdout: "pipe",
    });
    try {
      const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
      const readLine = async () => new TextDecoder().decode((await reader.read()).value);
      expect(await readLine()).toContain("ready");
      const first = await probeHeap(child.pid, file);
      child.stdin.write("grow\n");
      await child.stdin.flush();
      expect(await readLine()).toContain("grown");
      const second = await probeHeap(child.pid, file);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      expect(second!.objectCount - first!.objectCount).toBeGreaterThanOrEqual(20_000);
      expect(second!.heapSize).toBeGreaterThan(first!.heapSize);
      expect(second!.rss).toBeGreaterThan(0);
    } finally {
      child.kill();
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.if(process.platform === "linux")("the probe still loads beside other Bun options (a CPU profile)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-heap-probe-"));
    const file = join(dir, "heap.jsonl");
    const child = Bun.spawn([process.execPath, "-e", "process.stdin.on('data', () => {}); console.log('ready');"], {
      env: { ...process.env, ...heapProbeEnv(file, `--cpu-prof --cpu-prof-dir=${dir}`) },
      stdin: "pipe",
      stdout: "pipe",
    });
    try {
      const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
      expect(await probeHeap(child.pid, file)).not.toBeNull();
    } finally {
      child.kill();
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a child without the probe does not answer (null, not a hang)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-heap-probe-"));
    try {
      // this process is not probed: a handler keeps the signal from ending it, and nothing is written
      const ignore = () => undefined;
      process.on("SIGUSR2", ignore);
      try {
        expect(await probeHeap(process.pid, join(dir, "none.jsonl"), 200)).toBeNull();
      } finally {
        process.off("SIGUSR2", ignore);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
