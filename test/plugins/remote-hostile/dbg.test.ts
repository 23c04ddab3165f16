import { test } from "bun:test";
import { startHostile } from "./helpers.ts";
test("dbg", async () => {
  const h = await startHostile("worker", { maxMemoryMb: 64, memoryCheckMs: 600_000 });
  const t0 = performance.now();
  console.log(await h.act("HOG", { mb: 128, step: 16, sync: true }), performance.now() - t0);
  for (let i = 0; i < 60; i++) { const s = h.handle.status(); if (s.restarts && s.state === "ready") break; await Bun.sleep(100); }
  const t1 = performance.now();
  await h.stop();
  console.log("stop took", performance.now() - t1);
}, 20000);
