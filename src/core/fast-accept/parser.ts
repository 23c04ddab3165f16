import type { z } from "zod";

/** What a boundary parses with: a zod schema, or one with a hand check in front of it. */
export interface Parser<T> {
  safeParse(value: unknown): z.ZodSafeParseResult<T>;
}

/**
 * `schema` with `accept` in front of it: `accept` returns the common value as the schema would return it (or null),
 * the schema decides everything else and writes every error. Each hand check has a test running it beside its schema
 * on one corpus.
 */
export function withFastAccept<S extends z.ZodType>(schema: S, accept: (value: unknown) => z.output<S> | null): Parser<z.output<S>> {
  return {
    safeParse: (value) => {
      const data = accept(value);
      return data !== null ? { success: true, data } : schema.safeParse(value);
    },
  };
}
