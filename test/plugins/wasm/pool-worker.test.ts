import { expect, test } from "bun:test";
import { createLogger } from "../../../src/core/logger.ts";
import { newInterruptFlag } from "../../../src/plugins/wasm/guest/meter.ts";
import { SANDBOX_STOP_GRACE_MS } from "../../../src/plugins/wasm/limits.ts";
import { PoolWorker, type TenantHandler } from "../../../src/plugins/wasm/sandbox/pool-worker.ts";
import { waitFor } from "../../helpers/wait.ts";

function tenant(name: string, lost: string[], busyUntil: () => number = () => 0): TenantHandler {
  return { onMessage() {}, onResult() {}, onWorkerLost: (reason) => lost.push(`${name}: ${reason}`), busyUntil };
}

test("a Worker that does not drop a stopped plugin is terminated once no neighbour's call is within its deadline", async () => {
  const gone: PoolWorker[] = [];
  let tenants = 0;
  const worker = new PoolWorker(new URL("./stuck-worker.ts", import.meta.url), createLogger("test"), (w) => gone.push(w), () => ++tenants);
  expect(await worker.booted).toBe(true);
  const lost: string[] = [];
  let busyDeadline = Date.now() + 600_000; // a neighbour's call in flight, within its deadline
  const spinner = worker.attach(tenant("spinner", lost), newInterruptFlag(), 1);
  const busy = worker.attach(tenant("busy", lost, () => busyDeadline), newInterruptFlag(), 1);
  worker.attach(tenant("idle", lost), newInterruptFlag(), 1);
  worker.post("spin");
  worker.stop(spinner.tenant);
  // the grace passes: the busy neighbour's call may be what holds the Worker, so it is not terminated yet
  await Bun.sleep(SANDBOX_STOP_GRACE_MS * 2);
  expect(worker.gone).toBeNull();
  // the busy neighbour's call passes its deadline: its own timer stops it too
  busyDeadline = 0;
  worker.stop(busy.tenant);
  await waitFor(() => worker.gone !== null, "the stuck Worker terminated", 30_000);
  expect(gone).toEqual([worker]);
  // the stopped plugins are gone already; the idle neighbour is told, to start again elsewhere
  expect(lost).toEqual([`idle: a guest in its sandbox Worker did not stop within ${SANDBOX_STOP_GRACE_MS} ms of its interrupt`]);
}, 60_000);
