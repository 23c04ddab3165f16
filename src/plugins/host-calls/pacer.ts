import { HOST_CALL_MAX_HELD_REFUSALS, HOST_CALL_REFUSAL_DELAY_MS } from "./limits.ts";

/** Run `run` in `ms` milliseconds; returns a cancel. */
export type Schedule = (run: () => void, ms: number) => () => void;

/** setTimeout whose timer never keeps the process alive. */
export const unrefTimeout: Schedule = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/**
 * Holds the answers to refused calls and sends them in one batch `delayMs` after the first was held. A plugin that
 * awaits each call and retries at once gets at most one refusal per delay and loop, whatever its speed; at most
 * `max` answers are held (the rest are sent at once: a plugin that does not wait for answers is bounded by how fast
 * the host reads its messages, as with any other message).
 */
export class RefusalPacer {
  private held: Array<() => void> = [];
  private cancel: (() => void) | null = null;

  constructor(
    private readonly delayMs = HOST_CALL_REFUSAL_DELAY_MS,
    private readonly max = HOST_CALL_MAX_HELD_REFUSALS,
    private readonly schedule: Schedule = unrefTimeout,
  ) {}

  /** Hold `answer` for the delay: false when `max` are held already (the caller answers now). */
  hold(answer: () => void): boolean {
    if (this.held.length >= this.max) return false;
    this.held.push(answer);
    this.cancel ??= this.schedule(() => this.flush(), this.delayMs);
    return true;
  }

  get size(): number {
    return this.held.length;
  }

  /** Send every held answer now. */
  flush(): void {
    this.cancel?.();
    this.cancel = null;
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }
}
