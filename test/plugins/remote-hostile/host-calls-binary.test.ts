/**
 * The built gateway with a subprocess plugin calling the host in a tight loop over the budget its plugin.toml sets:
 * its calls are refused (RATE_LIMITED) and /api/plugins counts them, /health keeps answering meanwhile, and another
 * plugin within its budget is served as usual.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";
import { startHostileGateway } from "./gateway.ts";

const cleanup: Array<() => unknown> = [];
beforeAll(() => ensureBinary(), 300_000);
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

const POLITE_CALLS = 20;

/** A remote plugin whose route makes POLITE_CALLS runtime.getCache calls, one after the other. */
function politePlugin(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "prx-polite-")), "polite");
  cleanup.push(() => rmSync(join(dir, ".."), { recursive: true, force: true }));
  mkdirSync(dir);
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "polite"\nversion = "0.1.0"\nruntime = "remote"\n\n[remote]\nentry = "worker.js"\ntransport = "process"\n`,
  );
  writeFileSync(
    join(dir, "worker.js"),
    `export default {
      name: "polite",
      description: "a few host calls per request",
      routes: [{ type: "GET", path: "/calls", handler: async (_req, _res, runtime) => {
        let ok = 0, failed = [];
        for (let i = 0; i < ${POLITE_CALLS}; i++) {
          try { await runtime.getCache("k"); ok++; } catch (error) { failed.push(String(error.code)); }
        }
        return { ok, failed };
      } }],
    };\n`,
  );
  return dir;
}

interface RemoteRow {
  name: string;
  remote: { host_calls: number; host_refused: number; last_host_refusal: string | null };
}

test("a plugin flooding the host is refused and counted, /health answers, and a plugin within its budget is served", async () => {
  const gw = await startHostileGateway({
    binary: BINARY,
    plugin: { transport: "process", rpcTimeoutMs: 60_000, resources: { max_host_calls_per_second: 50, host_call_burst: 50 } },
    extraPlugins: [politePlugin()],
  });
  cleanup.push(() => gw.stop());

  // four loops of runtime.getCache until 20 refusals (bounded: at most 20,000 calls)
  let flooding = true;
  const flood = gw
    .get("/plugins/hostile/hostcalls?refused=20&n=20000&par=4")
    .then(async (r) => ({ status: r.status, body: (await r.json()) as { result: string } }))
    .finally(() => (flooding = false));
  const health: number[] = [];
  const polite: Array<{ ok: number; failed: string[] }> = [];
  while (flooding) {
    health.push((await fetch(`${gw.url}/health`, { signal: AbortSignal.timeout(10_000) })).status);
    polite.push((await (await gw.get("/plugins/polite/calls")).json()) as { ok: number; failed: string[] });
    await Bun.sleep(20);
  }
  const { status, body } = await flood;
  expect(status).toBe(200);
  const out = JSON.parse(body.result) as { ok: number; refused: number; other: number; code: string; message: string };
  expect(out.refused).toBe(20);
  expect([out.other, out.code]).toEqual([0, "RATE_LIMITED"]);
  expect(out.message).toContain(
    "runtime.getCache refused: plugin hostile is over its host-call rate (max_host_calls_per_second = 50, host_call_burst = 50)",
  );
  expect(out.message).toContain("raise them in the [resources] table of hostile's plugin.toml");

  expect(health.length).toBeGreaterThan(0);
  expect(health.every((s) => s === 200)).toBe(true);
  expect(polite.length).toBeGreaterThan(0);
  expect(polite.every((p) => p.ok === POLITE_CALLS && p.failed.length === 0)).toBe(true);

  const { plugins } = (await (await gw.get("/api/plugins")).json()) as { plugins: RemoteRow[] };
  const hostile = plugins.find((p) => p.name === "hostile")!.remote;
  const politeRow = plugins.find((p) => p.name === "polite")!.remote;
  expect(hostile.host_refused).toBeGreaterThanOrEqual(20);
  expect(Number.isNaN(Date.parse(hostile.last_host_refusal ?? ""))).toBe(false);
  expect([politeRow.host_refused, politeRow.last_host_refusal]).toEqual([0, null]);
  expect(politeRow.host_calls).toBeGreaterThanOrEqual(POLITE_CALLS * polite.length);
}, 120_000);
