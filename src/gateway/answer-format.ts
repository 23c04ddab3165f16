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
 * answer must be one JSON object; a `json_schema` answer must validate against the schema (JSON Schema 2020-12,
 * which reads draft-07 schemas as OpenAI's structured outputs write them). A schema that cannot be compiled is the
 * client's 400. The validator (ajv) loads with the first json_schema format, never at start.
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
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  let validate: ReturnType<InstanceType<typeof Ajv2020>["compile"]>;
  try {
    validate = new Ajv2020({ strict: false, allErrors: false }).compile(request.schema);
  } catch (error) {
    throw new PrxError("BAD_REQUEST", `${param}.schema is not a JSON Schema prx can check: ${errorMessage(error)}`, {
      hint: "send a JSON Schema (draft 2020-12 or draft-07) object",
      details: { param: `${param}.schema` },
    });
  }
  return {
    request,
    check(text) {
      const got = parsed(text);
      if ("problem" in got) return got.problem;
      if (validate(got.value)) return null;
      const first = validate.errors?.[0];
      const where = first?.instancePath ? `at ${first.instancePath}` : "at the top";
      return cut(`it does not validate against the schema "${request.name}": ${where} ${first?.message ?? "it is invalid"}`);
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
