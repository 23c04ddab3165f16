import type { Envelopes, Stage } from "../../contracts/envelopes.ts";

/**
 * A changed envelope a middleware returns, checked by hand in front of its stage's zod schema (EnvelopeSchemas), which
 * decides everything else and writes every error. A check accepts a value only when the schema accepts it and would
 * return it unchanged: exactly the schema's keys (zod strips others), no media (its schema is left to zod), no own
 * `__proto__` key. Then the parsed value is the envelope and the reply's text its JSON. What it buys: zod's parse of
 * an inbound envelope, and the walk that checks it dropped nothing, cost more than the JSON.parse before them
 * (`bun run bench middleware`, a kit-built middleware that changes the text). test/plugins/middleware/fast-accept.test.ts
 * runs each check and its schema on one corpus.
 */
type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Exactly `required`, plus any of `optional`; `__proto__` is never one of them. */
function hasKeys(value: Plain, required: readonly string[], optional: readonly string[] = []): boolean {
  let seen = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (required.includes(key)) seen++;
    else if (!optional.includes(key)) return false;
  }
  return seen === required.length && !Object.hasOwn(value, "__proto__");
}

/** z.record(z.string(), z.unknown()) as JSON.parse gives it: a plain object without an own `__proto__` key. */
function isRecord(value: unknown): boolean {
  return isPlain(value) && Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, "__proto__");
}

const isString = (v: unknown): v is string => typeof v === "string";
const isCount = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const ROLES: ReadonlySet<unknown> = new Set(["system", "user", "assistant", "tool"]);

function everyItem(value: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

function isToolCall(v: unknown): boolean {
  return isPlain(v) && hasKeys(v, ["id", "name", "arguments"]) && isString(v.id) && isString(v.name) && isString(v.arguments);
}

function isMessage(v: unknown): boolean {
  return (
    isPlain(v) &&
    hasKeys(v, ["role", "content"], ["tool_calls", "tool_call_id", "name"]) &&
    ROLES.has(v.role) &&
    isString(v.content) &&
    (v.tool_calls === undefined || everyItem(v.tool_calls, isToolCall)) &&
    (v.tool_call_id === undefined || isString(v.tool_call_id)) &&
    (v.name === undefined || isString(v.name))
  );
}

function isToolSpec(v: unknown): boolean {
  return (
    isPlain(v) &&
    hasKeys(v, ["name", "description", "parameters"], ["strict"]) &&
    isString(v.name) &&
    v.name.length > 0 &&
    isString(v.description) &&
    isRecord(v.parameters) &&
    (v.strict === undefined || typeof v.strict === "boolean")
  );
}

function isUsage(v: unknown): boolean {
  return (
    isPlain(v) &&
    hasKeys(v, ["prompt_tokens", "completion_tokens", "total_tokens"]) &&
    isCount(v.prompt_tokens) &&
    isCount(v.completion_tokens) &&
    isCount(v.total_tokens)
  );
}

const CHECKS: { [S in Stage]: (v: Plain) => boolean } = {
  inbound: (v) =>
    hasKeys(v, ["text", "channel", "user_id", "session_id", "metadata"]) &&
    isString(v.text) &&
    isString(v.channel) &&
    (v.user_id === null || isString(v.user_id)) &&
    isString(v.session_id) &&
    isRecord(v.metadata),
  llm_request: (v) =>
    hasKeys(v, ["messages", "model", "temperature", "tools"]) &&
    everyItem(v.messages, isMessage) &&
    isString(v.model) &&
    typeof v.temperature === "number" &&
    Number.isFinite(v.temperature) &&
    everyItem(v.tools, isToolSpec),
  llm_response: (v) =>
    hasKeys(v, ["text", "tool_calls", "model", "usage"]) &&
    isString(v.text) &&
    everyItem(v.tool_calls, isToolCall) &&
    isString(v.model) &&
    (v.usage === null || isUsage(v.usage)),
  outbound: (v) => hasKeys(v, ["text", "channel", "session_id"]) && isString(v.text) && isString(v.channel) && isString(v.session_id),
};

/** Whether `value` (parsed JSON) is a `stage` envelope its schema would return unchanged; false: ask the schema. */
export function acceptsEnvelope<S extends Stage>(stage: S, value: unknown): value is Envelopes[S] {
  return isPlain(value) && Object.getPrototypeOf(value) === Object.prototype && CHECKS[stage](value);
}
