import { expect, test } from "bun:test";
import { rerunOnRequest } from "../../src/core/rerun.ts";

/** A run that waits until the test lets it end, counting how many started. */
function gatedRun() {
  let started = 0;
  const gates: Array<() => void> = [];
  const run = () => {
    started++;
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  const finishNext = async () => {
    while (gates.length === 0) await Promise.resolve();
    gates.shift()!();
  };
  return { run, finishNext, started: () => started };
}

test("a request with no run in progress starts one, and its promise settles when the run ends", async () => {
  const g = gatedRun();
  const request = rerunOnRequest(g.run);
  let settled = false;
  const done = request().then(() => (settled = true));
  expect(g.started()).toBe(1);
  await Promise.resolve();
  expect(settled).toBe(false);
  await g.finishNext();
  await done;
  expect(g.started()).toBe(1);
});

test("any number of requests during a run cost exactly one more run, after it", async () => {
  const g = gatedRun();
  const request = rerunOnRequest(g.run);
  const first = request();
  const during = [request(), request(), request()];
  expect(g.started()).toBe(1);
  await g.finishNext();
  await g.finishNext();
  await Promise.all([first, ...during]);
  expect(g.started()).toBe(2);
  // nothing in progress: the next request starts a run of its own
  const later = request();
  expect(g.started()).toBe(3);
  await g.finishNext();
  await later;
});

test("a run that throws ends the series and lets the next request start a run", async () => {
  let calls = 0;
  const request = rerunOnRequest(async () => {
    calls++;
    if (calls === 1) throw new Error("first run fails");
  });
  await expect(request()).rejects.toThrow("first run fails");
  await request();
  expect(calls).toBe(2);
});
