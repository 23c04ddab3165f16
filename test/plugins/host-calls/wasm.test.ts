/**
 * A WASM guest over its host-call budget (notes-tool: one memory.store rpc, then one events.publish per call): a
 * refused rpc is an error result naming the limit, a publish over it is dropped, and both are counted.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import { loadWasmPlugin } from "../../../src/plugins/wasm/loader.ts";
import { type TestHost, admitted, makeHost, removeDir } from "../wasm/helpers.ts";

let t: TestHost;
beforeAll(() => {
  t = makeHost();
});
afterAll(() => {
  t.close();
  removeDir(t.root);
});

const cap = { type: "tool" as const, name: "note" };
const AT = Date.parse("2026-01-02T03:04:05.000Z");

async function notes(burst: number) {
  const host = makeHost({ root: t.root, memory: new SqliteMemory(() => t.storage.memory) });
  const plugin = admitted("notes-tool", { resources: { hostCalls: { perSecond: 1, burst, inFlight: 8 } } });
  // a clock that never moves: exactly `burst` host calls pass
  const inst = await loadWasmPlugin(plugin, host.host, { hostCallClock: () => AT });
  return { host, inst };
}

test("at the burst the rpc passes; the next one is refused with the limit and how to raise it, and counted", async () => {
  const { host, inst } = await notes(2);
  const first = (await inst.invoke(cap, "execute", ["one"])) as { success: boolean; output: string };
  expect(first.success).toBe(true);
  expect(host.events).toHaveLength(1);
  expect(inst.hostCalls?.()).toEqual({ refused: 0, lastRefusedAt: null, inFlight: 0 });
  const second = (await inst.invoke(cap, "execute", ["two"])) as { success: boolean; error: string };
  expect(second.success).toBe(false);
  expect(second.error).toContain(
    "memory.store refused: plugin notes-tool is over its host-call rate (max_host_calls_per_second = 1, host_call_burst = 2); " +
      "slow down, or raise them in the [resources] table of notes-tool's plugin.toml",
  );
  expect(inst.hostCalls?.()).toEqual({ refused: 1, lastRefusedAt: AT, inFlight: 0 });
  await inst.release();
});

test("an events.publish over the budget is dropped and counted (publishing is fire and forget)", async () => {
  const { host, inst } = await notes(1);
  const result = (await inst.invoke(cap, "execute", ["one"])) as { success: boolean };
  expect(result.success).toBe(true);
  expect(host.events).toEqual([]);
  expect(inst.hostCalls?.()).toMatchObject({ refused: 1, lastRefusedAt: AT });
  await inst.release();
});
