import { PrxError } from "../../core/errors.ts";
import { WEBHOOK_REPLY_KEEP_MAX, WEBHOOK_REPLY_KEEP_MS, WEBHOOK_SYNC_WAIT_MS } from "../limits.ts";

export interface WebhookRepliesOptions {
  /** Defaults to WEBHOOK_SYNC_WAIT_MS. */
  waitMs?: number;
  /** Defaults to WEBHOOK_REPLY_KEEP_MS. */
  keepMs?: number;
  /** Defaults to WEBHOOK_REPLY_KEEP_MAX. */
  keepMax?: number;
  now?: () => number;
}

/** Replies of the webhook channel's synchronous mode, handed from the runner to the waiting HTTP request. */
export class WebhookReplies {
  private readonly waiting = new Map<string, Array<(parts: string[]) => void>>();
  private readonly settled = new Map<string, { parts: string[]; at: number }>();
  private readonly waitMs: number;
  private readonly keepMs: number;
  private readonly keepMax: number;
  private readonly now: () => number;

  constructor(options: WebhookRepliesOptions = {}) {
    this.waitMs = options.waitMs ?? WEBHOOK_SYNC_WAIT_MS;
    this.keepMs = options.keepMs ?? WEBHOOK_REPLY_KEEP_MS;
    this.keepMax = options.keepMax ?? WEBHOOK_REPLY_KEEP_MAX;
    this.now = options.now ?? Date.now;
  }

  /** Answers kept for a caller that has not asked yet. */
  get kept(): number {
    return this.settled.size;
  }

  settle(id: string, parts: string[]): void {
    const waiters = this.waiting.get(id);
    this.waiting.delete(id);
    if (waiters) for (const wake of waiters) wake(parts);
    else {
      const now = this.now();
      // kept in the order they were settled (an id settled again moves to the end): the expired ones are at the front
      this.settled.delete(id);
      for (const [key, value] of this.settled) {
        if (now - value.at <= this.keepMs && this.settled.size < this.keepMax) break;
        this.settled.delete(key);
      }
      this.settled.set(id, { parts, at: now });
    }
  }

  /** The answer to `id`; after the wait a PrxError with status 202 (the caller is told it is still being prepared). */
  wait(id: string, timeoutMs = this.waitMs): Promise<string[]> {
    const done = this.settled.get(id);
    if (done) {
      this.settled.delete(id);
      return Promise.resolve(done.parts);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.waiting.get(id)?.filter((w) => w !== wake) ?? [];
        if (list.length) this.waiting.set(id, list);
        else this.waiting.delete(id);
        reject(new PrxError("ABORTED", `the reply to ${id} is still being prepared; post the same id again later to get it`, { status: 202 }));
      }, timeoutMs);
      const wake = (parts: string[]) => {
        clearTimeout(timer);
        resolve(parts);
      };
      this.waiting.set(id, [...(this.waiting.get(id) ?? []), wake]);
    });
  }
}
