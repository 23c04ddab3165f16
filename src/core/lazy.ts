/**
 * A value built on first use. Wire schemas are declared this way: building ~40 zod schemas at import costs
 * several milliseconds of gateway start-up, and most are needed only by the first request that uses them.
 */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}
