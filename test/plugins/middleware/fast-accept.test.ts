import { describe, expect, test } from "bun:test";
import { EnvelopeSchemas } from "../../../src/contracts/envelope-schemas.ts";
import type { Envelopes, Stage } from "../../../src/contracts/envelopes.ts";
import { acceptsEnvelope } from "../../../src/plugins/middleware/fast-accept.ts";
import { readReply } from "../../../src/plugins/middleware/reply.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [null, "", "x", 0, -1, 1, 1.5, 2 ** 53, true, [], [{}], {}, { a: 1 }, JSON.parse('{"__proto__":{"a":1}}')];

/** `base`, and every variant of it with one field (at `path`) replaced by each probe, removed, or joined by an extra key. */
function variants(base: unknown, paths: (string | number)[][]): unknown[] {
  const out: unknown[] = [base];
  for (const path of paths) {
    for (const probe of [...PROBES, "__delete__", "__extra__"]) {
      const copy = structuredClone(base) as Record<string | number, unknown>;
      let at: Record<string | number, unknown> = copy;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
      const last = path.at(-1)!;
      if (probe === "__delete__") delete at[last];
      else if (probe === "__extra__") at[`${last}_extra`] = 1;
      else at[last] = probe;
      out.push(copy);
    }
  }
  // as JSON.parse gives it (an own __proto__ key stays a key)
  return out.map((value) => JSON.parse(JSON.stringify(value)));
}

const BASES: { [S in Stage]: { value: Envelopes[S]; paths: (string | number)[][] } } = {
  inbound: {
    value: { text: "hi", channel: "cli", user_id: "u", session_id: "s", metadata: { source: "x", n: [1, { deep: true }] } },
    paths: [["text"], ["channel"], ["user_id"], ["session_id"], ["metadata"], ["metadata", "source"]],
  },
  llm_request: {
    value: {
      messages: [
        { role: "system", content: "be brief" },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: "{}" }] },
        { role: "tool", content: "done", tool_call_id: "c1", name: "t" },
      ],
      model: "m",
      temperature: 0.7,
      tools: [{ name: "t", description: "d", parameters: { type: "object" }, strict: true }],
    },
    paths: [
      ["messages"],
      ["messages", 0],
      ["messages", 0, "role"],
      ["messages", 0, "content"],
      ["messages", 1, "tool_calls"],
      ["messages", 1, "tool_calls", 0, "id"],
      ["messages", 1, "tool_calls", 0, "arguments"],
      ["messages", 2, "tool_call_id"],
      ["messages", 2, "name"],
      ["model"],
      ["temperature"],
      ["tools"],
      ["tools", 0, "name"],
      ["tools", 0, "description"],
      ["tools", 0, "parameters"],
      ["tools", 0, "strict"],
    ],
  },
  llm_response: {
    value: {
      text: "ok",
      tool_calls: [{ id: "c", name: "t", arguments: "{}" }],
      model: "m",
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    },
    paths: [
      ["text"],
      ["tool_calls"],
      ["tool_calls", 0, "name"],
      ["model"],
      ["usage"],
      ["usage", "prompt_tokens"],
      ["usage", "completion_tokens"],
      ["usage", "total_tokens"],
    ],
  },
  outbound: { value: { text: "hi", channel: "cli", session_id: "s" }, paths: [["text"], ["channel"], ["session_id"]] },
};

describe("the middleware envelope fast checks agree with their zod schemas", () => {
  for (const stage of Object.keys(BASES) as Stage[]) {
    test(`${stage}: accepts only what the schema accepts and returns unchanged`, () => {
      const { value, paths } = BASES[stage];
      const corpus = variants(value, paths);
      let fast = 0;
      let valid = 0;
      for (const candidate of corpus) {
        const parsed = EnvelopeSchemas[stage].safeParse(candidate);
        if (parsed.success) valid++;
        if (!acceptsEnvelope(stage, candidate)) continue;
        fast++;
        if (!parsed.success) throw new Error(`fast check accepted what the schema refuses: ${JSON.stringify(candidate)}`);
        expect(parsed.data).toEqual(candidate as never);
        expect(JSON.stringify(parsed.data)).toBe(JSON.stringify(candidate));
      }
      expect(acceptsEnvelope(stage, value)).toBe(true);
      expect(fast).toBeGreaterThan(paths.length);
      expect(fast).toBeLessThan(valid);
      expect(valid).toBeLessThan(corpus.length);
    });
  }

  test("what the fast check leaves to zod still reads as zod reads it", () => {
    const outbound = { text: "hi", channel: "cli", session_id: "s" };
    const input = { envelope: outbound, json: JSON.stringify(outbound) };
    // an extra key: zod strips it, so the carried JSON is the stripped envelope's
    const extra = readReply("outbound", JSON.stringify({ ...outbound, text: "changed", extra: 1 }), input);
    expect(extra.next?.json).toBe(JSON.stringify({ ...outbound, text: "changed" }));
    // a wrong type: the failure names the field
    expect(() => readReply("outbound", JSON.stringify({ ...outbound, text: 1 }), input)).toThrow(/at text/);
    // a changed envelope the fast check accepts carries the reply's own text
    const reply = JSON.stringify({ ...outbound, text: "changed" });
    expect(readReply("outbound", reply, input).next).toEqual({ envelope: { ...outbound, text: "changed" }, json: reply });
  });
});
