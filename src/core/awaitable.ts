/**
 * Values that are ready now or later. Stores answer synchronously on SQLite and with a promise on PostgreSQL; code
 * written with these helpers keeps the synchronous path synchronous (no microtask hop, same ordering as before).
 */
export type Awaitable<T> = T | Promise<T>;

/** `next(value)` now when `value` is ready, after it resolves otherwise. */
export function then<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** `body()`, with `onError` for a synchronous throw or a rejection alike. */
export function attempt<T>(body: () => Awaitable<T>, onError: (error: unknown) => Awaitable<T>): Awaitable<T> {
  let result: Awaitable<T>;
  try {
    result = body();
  } catch (error) {
    return onError(error);
  }
  return result instanceof Promise ? result.catch(onError) : result;
}

/** `step(item)` for each item in order, each after the previous one finished. */
export function eachInOrder<T>(items: Iterable<T>, step: (item: T) => Awaitable<void>): Awaitable<void> {
  let done: Awaitable<void> = undefined;
  for (const item of items) done = then(done, () => step(item));
  return done;
}
