/**
 * The host-call flood of `bun run bench hostile`: the hostile plugin calls runtime.getCache in a tight loop for
 * FLOOD_MS while the runner probes /health and measures the gateway's CPU. Over its host-call budget the calls are
 * refused (RATE_LIMITED); the rows say how many were served, how many refused, and what status counted.
 */
import type { Scenario } from "./scenarios.ts";

export const FLOOD_MS = 5_000;
/** Calls the plugin keeps waiting at once (each loop awaits its call before the next). */
const PARALLEL = 4;

interface FloodResult {
  ok: number;
  refused: number;
  other: number;
}

const flood = (transport: "worker" | "process"): Scenario => ({
  name: `host-call flood (runtime.getCache x${PARALLEL} loops, ${transport})`,
  plugin: { transport, rpcTimeoutMs: 600_000 },
  async attack({ gw }) {
    const response = await gw.get(`/plugins/hostile/hostcalls?ms=${FLOOD_MS}&n=1000000000&par=${PARALLEL}`);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the flood failed: ${response.status} ${text.slice(0, 160)}`);
    const out = JSON.parse((JSON.parse(text) as { result: string }).result) as FloodResult;
    const remote = await gw.remote();
    const seconds = FLOOD_MS / 1000;
    const note = `${out.other} failed otherwise`;
    return {
      rows: [
        { name: "runtime.* calls served", value: out.ok / seconds, unit: "ops/s" },
        { name: "runtime.* calls refused", value: out.refused / seconds, unit: "ops/s", note },
        { name: "refusals counted in status", value: Number(remote.host_refused ?? 0), unit: "count" },
      ],
    };
  },
});

export const HOST_CALL_SCENARIOS: Scenario[] = [flood("process"), flood("worker")];
