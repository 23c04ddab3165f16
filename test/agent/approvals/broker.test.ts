/**
 * The broker over a real SQLite store with a clock the test moves: an answer wakes the waiting call; an answer given
 * through another broker on the same store (another process or replica) reaches it on its next read; no answer
 * before the expiry is a timeout, and a late answer is a conflict.
 */
import { expect, test } from "bun:test";
import { ApprovalBroker } from "../../../src/agent/approvals/index.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";
import { shellRequest } from "./shell-request.ts";
import { openSqliteStorage } from "../../../src/storage/open.ts";

const request = shellRequest(5_000);

test("an answer in this process wakes the waiting call at once", async () => {
  const storage = openSqliteStorage(":memory:");
  const broker = new ApprovalBroker(() => storage.approvals, fakeTimers().timers);
  const asked: string[] = [];
  const waiting = broker.ask(request, { kind: "ask", notify: (p) => void asked.push(p.id) }, new AbortController().signal);
  await Bun.sleep(0);
  const [pending] = await broker.pending(10);
  expect(pending!.id).toBe(asked[0]!);
  await broker.decide(pending!.id, "allow_session", "api", null);
  expect(await waiting).toEqual({ decision: "allow_session", by: "api", reason: null });
  expect(await broker.allowedForSession("s1", "shell")).toBe(true);
  expect(await broker.allowedForSession("s2", "shell")).toBe(false);
  await storage.close();
});

test("an answer through another broker on the same store reaches the waiting call on its next read", async () => {
  const storage = openSqliteStorage(":memory:");
  const clock = fakeTimers();
  const waiter = new ApprovalBroker(() => storage.approvals, clock.timers);
  const other = new ApprovalBroker(() => storage.approvals, clock.timers);
  const waiting = waiter.ask(request, { kind: "ask" }, new AbortController().signal);
  await Bun.sleep(0);
  const [pending] = await other.pending(10);
  await other.decide(pending!.id, "deny", "owner:42", "not now");
  clock.advance(250);
  expect(await waiting).toEqual({ decision: "deny", by: "owner:42", reason: "not now" });
  await storage.close();
});

test("no answer before the expiry is a timeout; a late answer is a conflict; an unknown id is not found", async () => {
  const storage = openSqliteStorage(":memory:");
  const clock = fakeTimers();
  const broker = new ApprovalBroker(() => storage.approvals, clock.timers);
  const waiting = broker.ask(request, { kind: "ask" }, new AbortController().signal);
  await Bun.sleep(0);
  const [pending] = await broker.pending(10);
  for (let i = 0; i < 20; i++) {
    clock.advance(250);
    await Bun.sleep(0);
  }
  expect(await waiting).toEqual({ decision: "timeout", by: "timeout", reason: null });
  expect(await broker.pending(10)).toEqual([]);
  await expect(broker.decide(pending!.id, "allow", "api", null)).rejects.toMatchObject({ code: "CONFLICT" });
  await expect(broker.decide("apr_unknown", "allow", "api", null)).rejects.toMatchObject({ code: "NOT_FOUND" });
  await storage.close();
});

test("a cancelled turn stops waiting and the approval is closed as denied", async () => {
  const storage = openSqliteStorage(":memory:");
  const broker = new ApprovalBroker(() => storage.approvals, fakeTimers().timers);
  const turn = new AbortController();
  const waiting = broker.ask(request, { kind: "ask" }, turn.signal);
  await Bun.sleep(0);
  turn.abort();
  expect(await waiting).toEqual({ decision: "deny", by: "cancelled", reason: null });
  expect(await broker.pending(10)).toEqual([]);
  await storage.close();
});
