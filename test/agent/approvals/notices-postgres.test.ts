/**
 * On PostgreSQL a decision is told on the schema's NOTIFY channel: a call waiting in one process is woken by an
 * answer given through another process's store with no read on a timer (its clock never moves here); twice, the
 * notices closed after the first call and opened again for the second.
 */
import { expect } from "bun:test";
import { ApprovalBroker } from "../../../src/agent/approvals/index.ts";
import { fakeTimers } from "../../helpers/fake-timers.ts";
import { shellRequest } from "./shell-request.ts";
import { sharedPgStores } from "../../helpers/pg-stores.ts";
import { waitFor } from "../../helpers/wait.ts";

const { stores, test: testWithPostgres } = await sharedPgStores("approval_notice", 2);

/** Time stands still (never advanced): a sleep ends only when its signal aborts, so nothing is read on a timer. */
const stillClock = fakeTimers().timers;

const request = shellRequest(60_000);

testWithPostgres("an answer through another process's store wakes the waiting call without a timed read", async () => {
  const waiter = new ApprovalBroker(() => stores[0]!.approvals, stillClock);
  const other = new ApprovalBroker(() => stores[1]!.approvals, stillClock);
  for (const [decision, by] of [["deny", "owner:42"], ["allow", "console"]] as const) {
    const waiting = waiter.ask(request, { kind: "ask" }, new AbortController().signal);
    const [pending] = await waitFor(async () => {
      const listed = await other.pending(10);
      return listed.length > 0 ? listed : null;
    }, "the approval listed");
    await other.decide(pending!.id, decision, by, null);
    expect(await waiting).toEqual({ decision, by, reason: null });
  }
});
