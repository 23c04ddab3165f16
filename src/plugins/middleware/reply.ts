import { parseJsonBounded } from "../../core/json/index.ts";
import { z } from "zod";
import { EnvelopeSchemas } from "../../contracts/envelope-schemas.ts";
import type { Envelopes, Stage } from "../../contracts/envelopes.ts";
import type { MiddlewareFailureKind } from "./types.ts";

/**
 * What a middleware may reply, besides a bare envelope (PRX's JavaScript PDK):
 * `{"action":"continue","data":"<envelope JSON text>"}` goes on with `data`, `{"action":"block","reason":"..."}`
 * ends the turn with `reason` as the reply. A top-level `action` key marks such a reply (no envelope has one).
 */
export const MiddlewareActionReplySchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("continue"), data: z.string() }),
  z.object({ action: z.literal("block"), reason: z.string() }),
]);
export type MiddlewareActionReply = z.infer<typeof MiddlewareActionReplySchema>;

/** A block reason longer than this (UTF-8) is cut to it, ending in "…": the block stands, the user gets the start. */
export const MAX_BLOCK_REASON_BYTES = 4096;
/** The reply of a block whose reason is empty or only whitespace. */
export const EMPTY_BLOCK_REASON = "This message was blocked.";

/** A middleware call that failed: isolated by the chain, which passes the envelope on unchanged. */
export class StepFailure extends Error {
  constructor(
    readonly kind: MiddlewareFailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** The next envelope and its JSON (the JSON travels along so an unchanged reply costs no parse). */
export interface Carried<S extends Stage> {
  envelope: Envelopes[S];
  json: string;
}

/** A reply, read: go on with `next`, or stop with `block` (the reason, already bounded). */
export type ReadReply<S extends Stage> = { next: Carried<S>; block?: undefined } | { next?: undefined; block: string };

const encoder = new TextEncoder();
const ELLIPSIS = "…";

/** The reason as the user will see it: non-empty, at most MAX_BLOCK_REASON_BYTES of UTF-8, cut on a character. */
export function boundBlockReason(reason: string): string {
  if (reason.trim() === "") return EMPTY_BLOCK_REASON;
  // A UTF-16 unit is at most 3 UTF-8 bytes: shorter strings cannot be over the limit.
  if (reason.length * 3 <= MAX_BLOCK_REASON_BYTES) return reason;
  const bytes = encoder.encode(reason);
  if (bytes.length <= MAX_BLOCK_REASON_BYTES) return reason;
  let end = MAX_BLOCK_REASON_BYTES - encoder.encode(ELLIPSIS).length;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // never split a character
  return new TextDecoder().decode(bytes.subarray(0, end)) + ELLIPSIS;
}

function invalidEnvelope(stage: Stage, issues: readonly { path: PropertyKey[]; message: string }[], what: string): StepFailure {
  const issue = issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  return new StepFailure("invalid_envelope", `${what} is not a valid ${stage} envelope at ${where}: ${issue?.message}`);
}

function parseJson(text: string, what: string): unknown {
  try {
    return parseJsonBounded(text, what);
  } catch (error) {
    throw new StepFailure("invalid_json", `${what} is not JSON: ${(error as Error).message}`);
  }
}

/** Whether zod's `output` of `input` dropped nothing (it strips unknown keys): then the input's text is its JSON. */
function keptWhole(input: unknown, output: unknown): boolean {
  if (typeof input !== "object" || input === null) return true;
  if (typeof output !== "object" || output === null) return false;
  if (Array.isArray(input)) return Array.isArray(output) && input.every((item, i) => keptWhole(item, output[i]));
  const keys = Object.keys(input);
  if (keys.length !== Object.keys(output).length) return false;
  return keys.every((key) => keptWhole((input as Record<string, unknown>)[key], (output as Record<string, unknown>)[key]));
}

/** `text` (a bare envelope, or a continue reply's data) as the stage's envelope; throws a StepFailure. */
function envelopeOf<S extends Stage>(stage: S, text: string, parsed: unknown, what: string): Carried<S> {
  const result = EnvelopeSchemas[stage].safeParse(parsed);
  if (!result.success) throw invalidEnvelope(stage, result.error.issues, what);
  const envelope = result.data as Envelopes[S];
  return { envelope, json: keptWhole(parsed, envelope) ? text : JSON.stringify(envelope) };
}

/**
 * Read one middleware reply. `input` is what the middleware received: an unchanged envelope (bare, or as a
 * continue's data) costs no further parse. A bare envelope costs one JSON.parse, as before PDK replies existed;
 * the `action` check is one property read on the parsed value. Throws a StepFailure for anything invalid.
 */
export function readReply<S extends Stage>(stage: S, reply: unknown, input: Carried<S>): ReadReply<S> {
  if (reply === input.json) return { next: input };
  if (typeof reply !== "string") throw new StepFailure("invalid_json", `reply is ${typeof reply}, expected a JSON string`);
  const parsed = parseJson(reply, "reply");
  if (typeof parsed !== "object" || parsed === null || !("action" in parsed)) return { next: envelopeOf(stage, reply, parsed, "reply") };
  const action = MiddlewareActionReplySchema.safeParse(parsed);
  if (!action.success) {
    const issue = action.error.issues[0];
    throw new StepFailure(
      "invalid_envelope",
      `reply has "action" but is not {"action":"continue","data":"<envelope JSON>"} or {"action":"block","reason":"..."}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
    );
  }
  if (action.data.action === "block") return { block: boundBlockReason(action.data.reason) };
  const data = action.data.data;
  if (data === input.json) return { next: input };
  return { next: envelopeOf(stage, data, parseJson(data, "continue data"), "continue data") };
}

/**
 * The block an error carries, if its message is exactly a block reply (PRX's PDK signals a block by throwing
 * `JSON.stringify({action: "block", reason})`, which reaches the host as the err variant). Anything else,
 * including a continue reply, stays an isolated failure.
 */
export function blockInError(error: unknown): string | null {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : null;
  if (message === null || !message.trimStart().startsWith("{")) return null;
  let parsed: unknown;
  try {
    parsed = parseJsonBounded(message, "error");
  } catch {
    return null; // not JSON (or nested too deeply): an ordinary error message, reported as the failure it is
  }
  const reply = MiddlewareActionReplySchema.safeParse(parsed);
  return reply.success && reply.data.action === "block" ? boundBlockReason(reply.data.reason) : null;
}
