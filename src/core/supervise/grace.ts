/**
 * Wait for `promise` at most `ms` (a child's grace to stop by itself before it is killed): true when it resolved in
 * time, false when the time ran out. A rejection is passed on. The timer is cleared either way, so it never keeps the
 * process alive.
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
