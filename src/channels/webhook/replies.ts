import { PrxError } from "../../core/errors.ts";

/** How long a settled reply waits for its HTTP caller (a reply can settle before the caller starts waiting). */
export const WEBHOOK_REPLY_KEEP_MS = 60_000;
/** How long a synchronous webhook caller waits for the answer before it gets 202 (the reply is then dropped). */
export const WEBHOOK_SYNC_WAIT_MS = 110_000;

/** Replies of the webhook channel's synchronous mode, handed from the runner to the waiting HTTP request. */
export class WebhookReplies {
  private readonly waiting = new Map<string, Array<(parts: string[]) => void>>();
  private readonly settled = new Map<string, { parts: string[]; at: number }>();

  settle(id: string, parts: string[]): void {
    const waiters = this.waiting.get(id);
    this.waiting.delete(id);
    if (waiters) for (const wake of waiters) wake(parts);
    else {
      const now = Date.now();
      for (const [key, value] of this.settled) if (now - value.at > WEBHOOK_REPLY_KEEP_MS) this.settled.delete(key);
      this.settled.set(id, { parts, at: now });
    }
  }

  wait(id: string, timeoutMs = WEBHOOK_SYNC_WAIT_MS): Promise<string[]> {
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
        reject(new PrxError("ABORTED", `the reply to ${id} is still being prepared`, { status: 202 }));
      }, timeoutMs);
      const wake = (parts: string[]) => {
        clearTimeout(timer);
        resolve(parts);
      };
      this.waiting.set(id, [...(this.waiting.get(id) ?? []), wake]);
    });
  }
}
