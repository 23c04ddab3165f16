/** A bounded exponential delay: `baseMs` for the first failure, doubling per failure, never above `maxMs`. */
export interface BackoffLimits {
  baseMs: number;
  maxMs: number;
}

export interface BackoffOptions extends BackoffLimits {
  /**
   * Spread each wait over [half, all] of its exponential ceiling ("equal jitter"), so clients that failed together
   * do not retry together. Without it every wait is the ceiling itself.
   */
  jitter?: boolean;
  /** A number in [0, 1) (tests pin it); Math.random unless given. */
  random?: () => number;
}

/**
 * When a supervised child that exited is started again. Each user keeps its own limits as named constants beside its
 * code and passes them here.
 */
export interface RestartLimits extends BackoffLimits {
  /** Exits within this sliding window count toward a crash loop. */
  windowMs: number;
  /** More exits than this within `windowMs` is a crash loop. */
  maxExitsPerWindow: number;
  /**
   * Set: the delay doubles per exit in a row, and a child that ran this long before exiting starts it over.
   * Absent: the delay doubles per exit within the window (exits that left the window no longer count).
   */
  stableAfterMs?: number;
  /** What a crash loop means: restart anyway (reported as a crash loop), or stop restarting on its own. */
  onCrashLoop: "keep-restarting" | "give-up";
}

/** What a RestartPolicy says about one exit. */
export interface RestartDecision {
  /** The wait before the next start. */
  delayMs: number;
  /** Exits within the window, this one included. */
  exitsInWindow: number;
  /** More than `maxExitsPerWindow` exits within the window. */
  crashLoop: boolean;
  /** Start the child again on its own after `delayMs`; false once a crash loop gives up. */
  restart: boolean;
}

/** How a child notices that the process which started it is gone. */
export type ParentDeathMechanism = "pdeathsig" | "watchdog";

export interface WatchParentOptions {
  /** How often the parent is checked. */
  intervalMs: number;
  /** The parent's pid as the system reports it now (process.ppid unless given). */
  parentPid?: () => number;
}
