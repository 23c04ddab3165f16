import { expect, test } from "bun:test";
import { ANSWER_FORMAT_PROBLEM_MAX_CHARS, answerFormat } from "../../src/gateway/answer-format.ts";

test(`what is wrong with an answer is told in at most ${ANSWER_FORMAT_PROBLEM_MAX_CHARS} characters, then cut`, async () => {
  const schema = { type: "object", properties: {}, required: [] as string[] };
  const at = ANSWER_FORMAT_PROBLEM_MAX_CHARS - 'it does not validate against the schema "s": ' .length - ": is required".length;
  schema.required = ["k".repeat(at)];
  const fits = await answerFormat({ type: "json_schema", name: "s", schema }, "text.format");
  const exact = fits.check("{}")!;
  expect(exact.length).toBe(ANSWER_FORMAT_PROBLEM_MAX_CHARS);
  expect(exact.endsWith("…")).toBe(false);
  schema.required = ["k".repeat(at + 1)];
  const over = await answerFormat({ type: "json_schema", name: "s", schema }, "text.format");
  const cut = over.check("{}")!;
  expect(cut).toHaveLength(ANSWER_FORMAT_PROBLEM_MAX_CHARS + 1);
  expect(cut.endsWith("…")).toBe(true);
});
