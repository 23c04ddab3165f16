/** JSON from outside prx, bounded in nesting depth before anything recursive (JSON.parse, schemas) touches it. */
export { MAX_JSON_DEPTH } from "./limits.ts";
export { assertJsonDepth, jsonDepthError, jsonDepthViolation, parseJsonBounded } from "./depth.ts";
export { JsonStandIns } from "./stand-ins.ts";
