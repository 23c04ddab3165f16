import type { AnswerFormat } from "../agent/types.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { ResponseFormat } from "../providers/types.ts";

/** Longest excerpt of a validation error that goes back to the model or the client. */
export const ANSWER_FORMAT_PROBLEM_MAX_CHARS = 500;

const cut = (text: string) => (text.length > ANSWER_FORMAT_PROBLEM_MAX_CHARS ? `${text.slice(0, ANSWER_FORMAT_PROBLEM_MAX_CHARS)}…` : text);

function parsed(text: string): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { problem: cut(`it is not JSON (${errorMessage(error)})`) };
  }
}

/**
 * The check of an API request's answer format (`param` names the field for a client's error): a `json_object`
 * answer must be one JSON object; a `json_schema` answer must validate against the schema (tools/args-check.ts:
 * 2020-12, or draft-07 by its $schema). A schema that cannot be compiled is the client's 400. The validator (ajv)
 * loads with the first json_schema format, never at start.
 */
export async function answerFormat(request: ResponseFormat, param: string): Promise<AnswerFormat> {
  if (request.type === "json_object") {
    return {
      request,
      check(text) {
        const got = parsed(text);
        if ("problem" in got) return got.problem;
        return got.value !== null && typeof got.value === "object" && !Array.isArray(got.value) ? null : "it is JSON, but not an object";
      },
    };
  }
  const { compileJsonSchema } = await import("../tools/args-check.ts");
  let validate: (value: unknown) => string | null;
  try {
    validate = compileJsonSchema(request.schema);
  } catch (error) {
    throw new PrxError("BAD_REQUEST", `${param}.schema is not a JSON Schema prx can check: ${errorMessage(error)}`, {
      hint: "send a JSON Schema (draft 2020-12, or draft-07 by its $schema) object",
      details: { param: `${param}.schema` },
    });
  }
  return {
    request,
    check(text) {
      const got = parsed(text);
      if ("problem" in got) return got.problem;
      const problem = validate(got.value);
      return problem === null ? null : cut(`it does not validate against the schema "${request.name}": ${problem}`);
    },
  };
}

/** The error of a turn whose answer still did not fit its format after the corrections. */
export function answerFormatFailure(problem: string, param: string): PrxError {
  return new PrxError("PROVIDER_PROTOCOL", `the model's answer does not fit ${param}, even after it was told what was wrong: ${problem}`, {
    hint: "try a model that supports structured outputs, or simplify the schema",
    status: 502,
    details: { param },
  });
}
