/** The attacks of `bun run bench hostile`, each against a fresh built gateway holding the hostile plugin. */
import { join } from "node:path";
import { alive, type HostileGateway } from "../../plugins/remote-hostile/gateway.ts";
import type { HostileOptions } from "../../plugins/remote-hostile/fixture.ts";
import type { BenchRow } from "../types.ts";

const MiB = 1024 * 1024;
export const FLOOD_BYTES = 100 * MiB;

export type ScenarioRow = Omit<BenchRow, "suite">;

export interface ScenarioContext {
  gw: HostileGateway;
  /** Stop the /health prober now (before the gateway goes away); the runner reports what it saw. */
  stopProbe(): Promise<void>;
  /** Repository root. */
  root: string;
}

export interface ScenarioOutcome {
  rows: ScenarioRow[];
  /** The attack ended the gateway (no turn after it). */
  gatewayGone?: boolean;
}

export interface Scenario {
  name: string;
  plugin: HostileOptions;
  /** Copy test/fixtures/test-wasm/loop-tool into the workspace. */
  wasm?: boolean;
  /** Report the gateway's RSS after the attack against its baseline, with this target (MB). */
  rssTargetMb?: number;
  attack(ctx: ScenarioContext): Promise<ScenarioOutcome>;
}

async function route(gw: HostileGateway, path: string): Promise<string> {
  const response = await gw.get(`/plugins/hostile${path}`);
  return `${response.status} ${(await response.text()).slice(0, 160)}`;
}

/** Poll /api/plugins until the hostile plugin is ready again (after a kill and restart), at most 30 s. */
async function readyAgain(gw: HostileGateway): Promise<Record<string, unknown>> {
  const end = Date.now() + 30_000;
  for (;;) {
    const remote = await gw.remote();
    if (remote.state === "ready" && Number(remote.restarts) > 0) return remote;
    if (Date.now() > end) throw new Error(`the plugin did not come back: ${JSON.stringify(remote)}`);
    await Bun.sleep(50);
  }
}

const flood = (transport: "worker" | "process", kind: string, label: string): Scenario => ({
  name: `log flood (${label}, ${transport})`,
  plugin: { transport, rpcTimeoutMs: 600_000 },
  rssTargetMb: 120,
  async attack({ gw }) {
    const answer = await route(gw, `/flood?kind=${kind}&bytes=${FLOOD_BYTES}&line=2`);
    if (!answer.startsWith("200")) throw new Error(`flood failed: ${answer}`);
    if (kind !== "stdout") return { rows: [] };
    const remote = await gw.remote();
    return { rows: [{ name: "malformed lines counted", value: Number(remote.malformed), unit: "count" }] };
  },
});

const hog = (transport: "worker" | "process"): Scenario => ({
  name: `memory hog 3 GiB (${transport})`,
  plugin: { transport, rpcTimeoutMs: 60_000 },
  rssTargetMb: 50,
  async attack({ gw }) {
    const answer = await route(gw, "/hog?mb=3072&step=64");
    const remote = await readyAgain(gw);
    // the Worker's memory is freed with its VM; give the allocator a moment to return it
    await Bun.sleep(2_000);
    const note = String(remote.last_error ?? answer).slice(0, 120);
    return { rows: [{ name: "killed", value: Number(remote.restarts), unit: "count", note }] };
  },
});

const spin = (transport: "worker" | "process"): Scenario => ({
  name: `spinning action (${transport})`,
  plugin: { transport, rpcTimeoutMs: 2_000 },
  async attack({ gw }) {
    const started = performance.now();
    const answer = await route(gw, "/spin?ms=60000");
    await readyAgain(gw);
    const note = answer.slice(0, 80);
    return { rows: [{ name: "spin to ready again", value: performance.now() - started, unit: "ms", note }] };
  },
});

const orphan: Scenario = {
  name: "orphan check (process, SIGKILL of the gateway)",
  plugin: { transport: "process", rpcTimeoutMs: 600_000 },
  async attack({ gw, stopProbe }) {
    const pid = Number((await gw.remote()).pid);
    void route(gw, "/spin?ms=60000").catch(() => "the gateway is gone");
    await Bun.sleep(1_000);
    await stopProbe();
    gw.proc.kill("SIGKILL");
    await gw.proc.exited;
    await Bun.sleep(2_000);
    const left = alive(pid) ? 1 : 0;
    if (left) process.kill(pid, "SIGKILL");
    return {
      rows: [{ name: "children left 2 s after SIGKILL", value: left, unit: "count", target: { op: "<=", value: 0 } }],
      gatewayGone: true,
    };
  },
};

const wasmSpin: Scenario = {
  name: "WASM spinning guest (loop-tool, 10 turns)",
  plugin: { transport: "worker" },
  wasm: true,
  async attack({ gw }) {
    let failed = 0;
    for (let i = 0; i < 10; i++) {
      const response = await gw.get(`/api/sessions/wasm-${i}/message`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "use tool spin {}" }),
      });
      const text = await response.text();
      if (response.status !== 200 || !/tool said/.test(text)) failed += 1;
    }
    return { rows: [{ name: "turns with the spin tool that did not answer", value: failed, unit: "count" }] };
  },
};

/** No attack: the same probes against an idle gateway, the machine's floor at this moment. */
const idle: Scenario = {
  name: "no attack (floor)",
  plugin: { transport: "worker" },
  async attack() {
    await Bun.sleep(5_000);
    return { rows: [] };
  },
};

export const SCENARIOS: Scenario[] = [
  idle,
  flood("worker", "console", "console.log 100 MB"),
  flood("process", "stdout", "stdout garbage 100 MB"),
  flood("process", "console", "console.log 100 MB"),
  flood("process", "stderr", "raw stderr 100 MB"),
  flood("worker", "logger", "runtime.logger 100 MB"),
  hog("worker"),
  hog("process"),
  spin("worker"),
  spin("process"),
  orphan,
  wasmSpin,
];

export const LOOP_TOOL = (root: string) => join(root, "test/fixtures/test-wasm/loop-tool");
