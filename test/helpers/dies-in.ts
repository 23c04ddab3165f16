/**
 * A process that dies in `step` of its work, in-process: `dying` is `real` with that step never returning, and
 * `reached` resolves when the step is called (the moment the process would have died).
 */
export function diesIn<T extends object>(real: T, step: keyof T): { dying: T; reached: Promise<void> } {
  const { promise: reached, resolve } = Promise.withResolvers<void>();
  const dying = Object.assign(Object.create(real) as T, {
    [step]: () => {
      resolve();
      return new Promise<never>(() => {});
    },
  });
  return { dying, reached };
}
