import { describe, expect, test } from "bun:test";
import type { Envelopes } from "../../../src/contracts/envelopes.ts";
import { MiddlewareChain } from "../../../src/plugins/middleware/chain.ts";
import { createPluginMiddlewareRunner } from "../../../src/plugins/middleware/runner.ts";
import type { MiddlewareEntry } from "../../../src/plugins/middleware/types.ts";

const outbound: Envelopes["outbound"] = { text: "hi", channel: "cli", session_id: "s" };

function upper(stages: MiddlewareEntry["stages"]): MiddlewareEntry {
  return {
    plugin: "p",
    name: "upper",
    priority: 1,
    stages,
    process: async (_stage, json) => JSON.stringify({ ...JSON.parse(json), text: "HI" }),
  };
}

function runnerOf(chain: MiddlewareChain, started = true) {
  let tracked = 0;
  const runner = createPluginMiddlewareRunner({
    started,
    current: () => ({
      middleware: chain,
      track: <T>(fn: () => Promise<T>) => {
        tracked++;
        return fn();
      },
    }),
  });
  return { runner, tracked: () => tracked };
}

describe("the plugin middleware runner", () => {
  test("a stage no middleware sees hands its envelope back at once: no promise, no tracked call", () => {
    const { runner, tracked } = runnerOf(new MiddlewareChain([upper(["inbound"])]));
    expect(runner.run("outbound", outbound)).toBe(outbound);
    expect(runner.active!("outbound")).toBe(false);
    expect(tracked()).toBe(0);
    const idle = runnerOf(new MiddlewareChain([upper("all")]), false);
    expect(idle.runner.run("outbound", outbound)).toBe(outbound);
    expect(idle.runner.active!("outbound")).toBe(false);
  });

  test("a stage with middleware runs its chain as one tracked call of the generation", async () => {
    const { runner, tracked } = runnerOf(new MiddlewareChain([upper(["outbound"])]));
    const out = runner.run("outbound", outbound);
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toEqual({ ...outbound, text: "HI" });
    expect(runner.active!("outbound")).toBe(true);
    expect(tracked()).toBe(1);
  });
});
