import { PrxError } from "../../core/errors.ts";
import { createLogger, type Logger } from "../../core/logger.ts";
import { REAL_TIMERS, sleepOn, type Timers } from "../../core/timers.ts";
import type { ApprovalRow, ApprovalStore, StoreWatch } from "../../storage/types.ts";
import { APPROVAL_POLL_MS } from "./limits.ts";
import type { ApprovalAnswer, ApprovalDecision, ApprovalRoute, PendingApproval, ToolRisk } from "./types.ts";

/** One call that needs the owner's approval. */
export interface ApprovalRequest {
  sessionId: string;
  channel: string;
  sender: string | null;
  tool: string;
  risk: ToolRisk;
  argsSha256: string;
  preview: string;
  timeoutMs: number;
}

export type AskRoute = Extract<ApprovalRoute, { kind: "ask" }>;

/**
 * Approvals of one host: a waiting call is stored (any process or replica sharing the store lists and answers it) and
 * waits for its answer, which arrives at once when given in this process or told by the store (ApprovalStore.watch,
 * open while calls wait), and within APPROVAL_POLL_MS from elsewhere where the store tells nothing. No answer before
 * it expires is a timeout, stored as such: a late answer is refused.
 */
export class ApprovalBroker {
  /** Calls waiting in this process, by approval id (the answer wakes them without waiting for the next read). */
  private readonly waiters = new Map<string, (row: ApprovalRow) => void>();
  /** The store's notices while calls wait (null inside: the store tells nothing), and how many waits hold them. */
  private notices: Promise<StoreWatch | null> | null = null;
  private noticeHolders = 0;

  constructor(
    private readonly store: () => ApprovalStore,
    /**
     * The clock (Date.now's: stored times are epoch milliseconds) and the timer a waiting call sleeps on; default
     * REAL_TIMERS: the sleep keeps the process alive (tests inject their own).
     */
    private readonly timers: Pick<Timers, "dateNow" | "after"> = REAL_TIMERS,
    private readonly logger: Logger = createLogger("approvals"),
    private readonly pollMs: number = APPROVAL_POLL_MS,
  ) {}

  /** Store the approval, tell the owner through the route, and wait for the answer (or the timeout, or the turn's end). */
  async ask(request: ApprovalRequest, route: AskRoute, signal: AbortSignal): Promise<ApprovalAnswer> {
    const created = this.timers.dateNow();
    const row: ApprovalRow = {
      id: `apr_${randomHex(12)}`,
      code: String(1000 + (crypto.getRandomValues(new Uint16Array(1))[0]! % 9000)),
      session_id: request.sessionId,
      channel: request.channel,
      chat_key: route.chatKey ?? null,
      sender: request.sender,
      tool: request.tool,
      risk: request.risk,
      args_sha256: request.argsSha256,
      args_preview: request.preview,
      state: "pending",
      decided_by: null,
      reason: null,
      created_at: created,
      expires_at: created + request.timeoutMs,
      decided_at: null,
    };
    const woken = new Promise<ApprovalRow>((resolve) => this.waiters.set(row.id, resolve));
    const store = this.store();
    // listening before the approval is stored: a decision made any time after is told
    const told = await this.holdNotices(store);
    try {
      await store.create(row);
      const pending = pendingOf(row);
      try {
        await route.notify?.(pending);
      } catch (error) {
        this.logger.warn(`could not tell the owner about approval ${row.id} (${row.tool}); it is still listed in /api/approvals`, {
          error: String(error),
        });
      }
      const answer = await this.wait(row, woken, signal, told);
      route.settled?.(pending, answer);
      return answer;
    } finally {
      this.waiters.delete(row.id);
      this.releaseNotices();
    }
  }

  /** Answer a pending approval once. NOT_FOUND for an unknown id, CONFLICT for one decided or run out already. */
  async decide(id: string, decision: ApprovalDecision, by: string, reason: string | null): Promise<ApprovalRow> {
    const store = this.store();
    const now = this.timers.dateNow();
    const existing = await store.get(id);
    if (!existing) throw new PrxError("NOT_FOUND", `no approval ${id}`, { status: 404, hint: "list pending approvals: GET /api/approvals" });
    if (existing.state === "pending" && existing.expires_at <= now) {
      throw new PrxError("CONFLICT", `approval ${id} ran out before it was answered`, { status: 409, hint: "the call was denied; ask again" });
    }
    const row = existing.state === "pending" ? await store.decide(id, decision, by, reason, now) : null;
    if (!row) {
      const state = (await store.get(id))?.state ?? existing.state;
      throw new PrxError("CONFLICT", `approval ${id} was decided already (${state})`, { status: 409, hint: "list pending approvals: GET /api/approvals" });
    }
    this.waiters.get(id)?.(row);
    return row;
  }

  /** Pending approvals of every process sharing the store, oldest first. */
  async pending(limit: number): Promise<PendingApproval[]> {
    return (await this.store().pending(this.timers.dateNow(), limit)).map(pendingOf);
  }

  /** The pending approval asked in this chat with this code. */
  async byCode(channel: string, chatKey: string, code: string): Promise<PendingApproval | null> {
    const row = await this.store().byCode(channel, chatKey, code, this.timers.dateNow());
    return row ? pendingOf(row) : null;
  }

  allowedForSession(sessionId: string, tool: string): Promise<boolean> | boolean {
    return this.store().allowedForSession(sessionId, tool);
  }

  /** Open the store's notices for a waiting call (shared by the calls waiting); false when it tells nothing. */
  private async holdNotices(store: ApprovalStore): Promise<boolean> {
    this.noticeHolders++;
    this.notices ??= store.watch
      ? store.watch((id) => void this.told(store, id)).catch((error: unknown) => {
          this.logger.warn(`approvals: no decision notices from the store, read every ${this.pollMs} ms`, { error: String(error) });
          return null;
        })
      : Promise.resolve(null);
    return (await this.notices) !== null;
  }

  private releaseNotices(): void {
    if (--this.noticeHolders > 0 || !this.notices) return;
    const closing = this.notices;
    this.notices = null;
    void closing.then((watch) => watch?.close()).catch((error: unknown) => this.logger.warn("approvals: unlisten failed", { error: String(error) }));
  }

  /** A decision told by the store (null: the notices (re)started, any may have been decided): wake its waiting call. */
  private async told(store: ApprovalStore, id: string | null): Promise<void> {
    for (const waiting of id === null ? [...this.waiters.keys()] : [id]) {
      if (!this.waiters.has(waiting)) continue;
      try {
        const row = await store.get(waiting);
        if (row && row.state !== "pending") this.waiters.get(waiting)?.(row);
      } catch (error) {
        this.logger.warn(`approvals: approval ${waiting} not read after its notice; read again when it runs out`, { error: String(error) });
      }
    }
  }

  private async wait(row: ApprovalRow, woken: Promise<ApprovalRow>, signal: AbortSignal, told: boolean): Promise<ApprovalAnswer> {
    const store = this.store();
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const got: { row: ApprovalRow | null } = { row: null };
      void woken.then((decided) => {
        got.row = decided;
        stop.abort();
      });
      while (true) {
        const remaining = row.expires_at - this.timers.dateNow();
        if (got.row || signal.aborted || remaining <= 0) break;
        // told by the store: asleep until the call runs out unless woken; else a read every pollMs
        await sleepOn(this.timers, told ? remaining : Math.min(this.pollMs, remaining), stop.signal);
        if (got.row || signal.aborted) break;
        const current = await store.get(row.id);
        if (current && current.state !== "pending") return answerOf(current);
      }
      if (got.row) return answerOf(got.row);
      const state = signal.aborted ? "deny" : "timeout";
      const by = signal.aborted ? "cancelled" : "timeout";
      const closed = await store.decide(row.id, state, by, null, this.timers.dateNow());
      if (closed) return answerOf(closed);
      // answered elsewhere in the same moment: that answer stands
      const current = await store.get(row.id);
      return current && current.state !== "pending" ? answerOf(current) : { decision: state, by, reason: null };
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
    }
  }
}

function answerOf(row: ApprovalRow): ApprovalAnswer {
  const decision = row.state === "pending" ? "timeout" : row.state;
  return { decision, by: row.decided_by ?? "unknown", reason: row.reason };
}

export function pendingOf(row: ApprovalRow): PendingApproval {
  return {
    id: row.id,
    code: row.code,
    tool: row.tool,
    risk: row.risk as ToolRisk,
    preview: row.args_preview,
    sessionId: row.session_id,
    channel: row.channel,
    expiresAt: row.expires_at,
  };
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
