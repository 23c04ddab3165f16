/**
 * The one way tests wait for something that happens in its own time (another process, a Worker, a timer): poll a
 * probe until it holds. The bound only decides when a wait that will never end is reported; it is generous because
 * a loaded 2-core machine is slow, and a test's outcome never depends on how long a wait took.
 */

/** How long a wait polls before it fails, unless the caller gives its own bound. */
export const WAIT_TIMEOUT_MS = 30_000;
/** How often a probe is asked again. */
export const WAIT_POLL_MS = 5;

type Held<T> = Exclude<T, null | undefined | false>;

/**
 * Resolves with the probe's first answer other than false, null or undefined. Throws "timed out waiting for <what>" once `timeoutMs` has passed
 * (`what` may be a function, for a description read only then, such as a process's output so far).
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string | (() => string) = "the condition",
  timeoutMs: number = WAIT_TIMEOUT_MS,
): Promise<Held<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value as Held<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()} (${timeoutMs} ms)`);
    await Bun.sleep(WAIT_POLL_MS);
  }
}
