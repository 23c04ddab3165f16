import { REAL_TIMERS, type Timers } from "../core/timers.ts";
import type { AccessLog } from "../gateway/access-log.ts";

/**
 * How long after listening the gateway's optional parts wait for its first answer before they start anyway: longer
 * than a health check polling a starting gateway takes to come back (every millisecond or so), short beside anything
 * a cron job or an edit of config.toml could notice.
 */
export const FIRST_ANSWER_WAIT_MS = 50;

declare const PRX_BUILT_WITHOUT_ANSWER_FIRST: boolean | undefined;
/** Off only in a binary built without the trick (`PRX_BUILD_WITHOUT=answer-first`), which the startup bench measures against. */
const ANSWER_FIRST = typeof PRX_BUILT_WITHOUT_ANSWER_FIRST === "undefined";

export interface FirstAnswer {
  /** The access log to give the gateway: `log`, noting the first request it is told of. */
  accessLog: AccessLog;
  /**
   * Settles on the event-loop turn after the gateway's first answer, or FIRST_ANSWER_WAIT_MS after it is called
   * (call it once the gateway listens), whichever comes first.
   */
  answered(): Promise<void>;
}

/**
 * The gateway's optional parts (the channel processes, the cron runner, the config watch) start after its first
 * answer: a health check waiting on a starting gateway is answered by a process that has nothing else to do but
 * the collection Bun's GC timer asks for at the first turn of the event loop, which comes after listening (its first
 * look at the heap always collects; with BUN_GC_TIMER_DISABLE=1 none runs before the first answer). A kept start-up
 * trick: tricks.ts, "answer-first".
 */
export function firstAnswer(log: AccessLog, timers: Pick<Timers, "after" | "soon"> = REAL_TIMERS): FirstAnswer {
  const { promise, resolve } = Promise.withResolvers<void>();
  let seen = false;
  return {
    accessLog: (entry) => {
      if (!seen) {
        seen = true;
        // a later turn: after the response that the log is told of has been written
        timers.soon(resolve);
      }
      log(entry);
    },
    answered: () => {
      if (!ANSWER_FIRST) return Promise.resolve();
      const cancelWait = timers.after(resolve, FIRST_ANSWER_WAIT_MS);
      return promise.finally(cancelWait);
    },
  };
}
