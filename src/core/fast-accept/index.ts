/**
 * Hand checks in front of zod schemas on hot paths: a check accepts only the common shape the schema accepts and
 * returns what the schema would; everything else, and every error, is the schema's.
 */
export { withFastAccept, type Parser } from "./parser.ts";
export { isCount, isInteger, isNumber, isPlainObject, isString, isStringOrNull, optional } from "./checks.ts";
