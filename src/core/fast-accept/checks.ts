/** The value tests hand checks share, each the same test as the zod schema it stands in front of. */

/** zod's object test: any object that is not null or an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const isString = (v: unknown): v is string => typeof v === "string";
export const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";
export const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
/** zod's `z.number().int()`: a safe integer. */
export const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
/** zod's `z.number().int().nonnegative()`. */
export const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
export const optional = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || check(v);
