/**
 * On PostgreSQL the cron jobs' writes are told on the schema's NOTIFY channel: a runner reads the jobs when told, with
 * no timer (its clock never moves here), and a store's watch hears the writes of another process's store.
 */
import { expect, test } from "bun:test";
import { pgChannel, PG_CHANNEL_MAX_BYTES } from "../../../src/storage/postgres/notify.ts";
import { sharedPgStores } from "../../helpers/pg-stores.ts";
import { waitFor } from "../../helpers/wait.ts";
import { FakeClock } from "../../plugins/cron/fake-clock.ts";
import { cronTool, parsed, telegramRunner, type Delivery } from "./harness.ts";

const T0 = Date.parse("2026-12-05T10:00:00.000Z");
const { stores, test: testWithPostgres } = await sharedPgStores("cron_notice", 2);

test("the channel's name holds the schema up to PG_CHANNEL_MAX_BYTES, and a hash of it past that", () => {
  const channel = (schema: string) => pgChannel("cron_jobs", schema);
  const fits = "s".repeat(PG_CHANNEL_MAX_BYTES - "prx_cron_jobs_".length);
  expect(channel(fits)).toBe(`prx_cron_jobs_${fits}`);
  const over = `${fits}x`;
  expect(channel(over)).not.toContain(over);
  expect(Buffer.byteLength(channel(over))).toBeLessThanOrEqual(PG_CHANNEL_MAX_BYTES);
  expect(channel(over)).not.toBe(channel(`${fits}y`));
});

testWithPostgres("a store's watch is told of jobs added, asked to run and removed through another process's store", async () => {
  let told = 0;
  const watch = await stores[0]!.cronJobs.watch!(() => void told++);
  try {
    await waitFor(() => told >= 1, "the watch's start told"); // (re)starts are told: a write while down is not lost
    const clock = new FakeClock(T0);
    const tool = cronTool(stores[1]!, clock);
    const job = parsed(await tool({ action: "add", schedule: { kind: "every", every_ms: 60_000 }, payload: { kind: "systemEvent", text: "x" } }));
    await waitFor(() => told >= 2, "the add told");
    parsed(await tool({ action: "run", jobId: job.id }));
    await waitFor(() => told >= 3, "the run request told");
    parsed(await tool({ action: "remove", jobId: job.id }));
    await waitFor(() => told >= 4, "the removal told");
  } finally {
    await watch.close();
  }
});

testWithPostgres("a runner runs a job asked to run through another store without its clock moving (no timer reads the jobs)", async () => {
  const clock = new FakeClock(T0);
  const deliveries: Delivery[] = [];
  const { runner } = telegramRunner(stores[0]!, clock, "replica-0", deliveries);
  await runner.start();
  try {
    const tool = cronTool(stores[1]!, clock);
    const job = parsed(await tool({ action: "add", schedule: { kind: "every", every_ms: 3_600_000 }, payload: { kind: "systemEvent", text: "now please" } }));
    parsed(await tool({ action: "run", jobId: job.id }));
    await waitFor(() => deliveries.some((d) => d.text === "now please"), "the manual run delivered");
    expect(clock.now()).toBe(T0);
    parsed(await tool({ action: "remove", jobId: job.id }));
  } finally {
    await runner.stop();
  }
});
