/** JSON from outside prx, bounded in nesting depth before anything recursive (JSON.parse, schemas) touches it. */
export { MAX_JSON_DEPTH } from "./limits.ts";
export { assertJsonDepth, jsonDepthError, jsonDepthViolation, parseJsonBounded } from "./depth.ts";
export { JsonStandIns } from "./stand-ins.ts";
export { parseJsonBoundedSlicing, SLICED_STRING_MIN_CHARS } from "./long-strings.ts";

/** A value JSON can carry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
