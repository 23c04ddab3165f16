import { expect, test } from "bun:test";
import { createLogger } from "../../../src/core/logger.ts";
import { newInterruptFlag } from "../../../src/plugins/wasm/guest/meter.ts";
import { Linger } from "../../../src/plugins/hop/index.ts";
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

test("a tenant stopped before its Worker sent the flag it created has that flag raised when it arrives", async () => {
  let tenants = 0;
  const worker = new PoolWorker(new URL("./flag-worker.ts", import.meta.url), createLogger("test"), () => {}, () => ++tenants);
  expect(await worker.booted).toBe(true);
  const lines: string[] = [];
  const watcher: TenantHandler = { ...tenant("watcher", []), onMessage: (m) => void (m.type === "log" && lines.push(m.message)) };
  const live = worker.attach(watcher, null, 1);
  const stopped = worker.attach(tenant("stopped", []), null, 1);
  worker.post({ type: "init", tenant: live.tenant } as never);
  worker.post({ type: "init", tenant: stopped.tenant } as never);
  worker.stop(stopped.tenant); // its flag is still on its way
  // the answer comes after both flags (one Worker, messages in order): by then the main thread has them
  worker.post({ type: "check", tenant: live.tenant, to: live.tenant } as never);
  await waitFor(() => lines.length === 1, "the neighbour's flag checked");
  worker.post({ type: "check", tenant: stopped.tenant, to: live.tenant } as never);
  await waitFor(() => lines.length === 2, "the stopped tenant's flag checked");
  // the stopped tenant's flag was raised by the time its Worker looked; its neighbour's was not
  expect(lines).toEqual(["raised 0", "raised 1"]);
  worker.terminate("test over");
});

test("after posting a call the main thread watches the Worker's count of answers, once per turn, while the call waits", async () => {
  const due: Array<() => void> = [];
  // a window of 10 s: the watch ends when the stand-in has counted its answer, however slow the machine
  const watch = new Linger(10_000_000, { schedule: (task) => void due.push(task), cpus: 2 });
  let tenants = 0;
  const worker = new PoolWorker(new URL("./answering-worker.ts", import.meta.url), createLogger("test"), () => {}, () => ++tenants, watch);
  expect(await worker.booted).toBe(true);
  const results: unknown[] = [];
  const handler: TenantHandler = { ...tenant("caller", []), onResult: (_id, ok, value) => void results.push({ ok, value }) };
  const { tenant: id, slots } = worker.attach(handler, newInterruptFlag(), 1);
  // a message that is not a call schedules no watch
  worker.post({ type: "stop-nothing", tenant: id } as never);
  expect(due.length).toBe(0);

  // two calls in one turn: one watch; it sees the answer counted (the stand-in's thread answers while it watches)
  for (let n = 0; n < 2; n++) worker.post({ type: "call", id: worker.callId(handler), cap: slots[0]!, fn: "f", args: [] });
  expect(due.length).toBe(1);
  due.splice(0).forEach((task) => task());
  expect(watch.stats()).toEqual({ watched: 1, came: 1, skipped: 0 });
  await waitFor(() => results.length === 2, "both answers read");
  expect(results).toEqual([
    { ok: true, value: "answered" },
    { ok: true, value: "answered" },
  ]);

  // a watch due once its call has been answered does not run
  worker.post({ type: "call", id: worker.callId(handler), cap: slots[0]!, fn: "f", args: [] });
  await waitFor(() => results.length === 3, "the third answer read");
  due.splice(0).forEach((task) => task());
  expect(watch.stats()).toEqual({ watched: 1, came: 1, skipped: 0 });
  worker.terminate("test over");
});
