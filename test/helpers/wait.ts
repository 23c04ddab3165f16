/**
 * The one way tests wait for something that happens in its own time (another process, a Worker, a timer): poll a
 * probe until it holds. The bound only decides when a wait that will never end is reported; it is generous because
 * a loaded 2-core machine is slow, and a test's outcome never depends on how long a wait took.
 */

/** How long a wait polls before it fails, unless the caller gives its own bound. */
export const WAIT_TIMEOUT_MS = 30_000;
/**
 * A probe is asked again after WAIT_POLL_FIRST_MS, then twice as long each time up to WAIT_POLL_MAX_MS: a quick
 * condition is seen at once, and a long wait on an HTTP probe asks at most 20 times a second.
 */
export const WAIT_POLL_FIRST_MS = 5;
export const WAIT_POLL_MAX_MS = 50;

type Held<T> = Exclude<T, null | undefined | false>;

/**
 * Resolves with the probe's first answer other than false, null or undefined. Throws "timed out waiting for <what>"
 * once `timeoutMs` has passed (`what` may be a function, for a description read only then, such as a process's
 * output so far).
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string | (() => string) = "the condition",
  timeoutMs: number = WAIT_TIMEOUT_MS,
): Promise<Held<T>> {
  const deadline = Date.now() + timeoutMs;
  for (let every = WAIT_POLL_FIRST_MS; ; every = Math.min(every * 2, WAIT_POLL_MAX_MS)) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value as Held<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()} (${timeoutMs} ms)`);
    await Bun.sleep(every);
  }
}
