/**
 * The JSON Schemas a channel checks platform answers with while it connects (wire-json.ts) are generated from the zod
 * wire schemas, the one definition of each shape: the file must be what the generator makes of them, and the check
 * must accept and refuse what zod does on the answers a platform sends.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { WIRE_JSON_FILE, WIRE_JSON_SOURCES, wireJsonSource } from "../../src/channels/regenerate-wire-json.ts";
import { inputJsonSchema } from "../../src/core/input-json-schema.ts";
import * as generated from "../../src/channels/wire-json.ts";
import { jsonCheck, type JsonSchema } from "../../src/core/json-check.ts";

test("wire-json.ts is what the generator makes of the zod schemas (else: bun src/channels/regenerate-wire-json.ts)", () => {
  expect(readFileSync(WIRE_JSON_FILE, "utf8")).toBe(wireJsonSource());
  for (const [name, { schema }] of Object.entries(WIRE_JSON_SOURCES)) {
    expect((generated as Record<string, JsonSchema>)[name]).toEqual(inputJsonSchema(schema));
  }
});

/** Answers a Telegram Bot API sends (and some it must not), for getMe and the envelope of every call. */
const SAMPLES: Record<string, unknown[]> = {
  TELEGRAM_USER_JSON: [
    { id: 999, is_bot: true, first_name: "prx", username: "prx_bot" },
    { id: 999, is_bot: true, first_name: "prx", can_join_groups: true, supports_inline_queries: false },
    { id: 999, is_bot: true, first_name: "prx", last_name: "Bot" },
    { id: 1.5, is_bot: true, first_name: "prx" },
    { id: "999", is_bot: true, first_name: "prx" },
    { id: 999, is_bot: "yes", first_name: "prx" },
    { id: 999, is_bot: true },
    { id: 999, is_bot: true, first_name: "prx", username: null },
    { id: 2 ** 60, is_bot: true, first_name: "prx" },
    null,
    [],
    "prx",
  ],
  TELEGRAM_ENVELOPE_JSON: [
    { ok: true, result: { id: 1 } },
    { ok: true, result: [] },
    { ok: true, result: null },
    { ok: true, result: true, extra: 1 },
    { ok: false, error_code: 409, description: "Conflict: terminated by other getUpdates request" },
    { ok: false, error_code: 429, description: "Too Many Requests", parameters: { retry_after: 3 } },
    { ok: false, error_code: 400, description: "Bad Request", parameters: { retry_after: "soon" } },
    { ok: false, error_code: "429", description: "Too Many Requests" },
    { ok: false, description: "no code" },
    { ok: "true", result: 1 },
    {},
    null,
  ],
};

test("the generated checks accept and refuse what the zod schemas do", () => {
  for (const [name, samples] of Object.entries(SAMPLES)) {
    const zod = WIRE_JSON_SOURCES[name]!.schema;
    const check = jsonCheck((generated as Record<string, JsonSchema>)[name]!);
    for (const sample of samples) {
      expect([name, sample, check.safeParse(sample).success]).toEqual([name, sample, zod.safeParse(sample).success]);
    }
  }
});
