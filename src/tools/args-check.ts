import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { errorMessage } from "../core/errors.ts";
import { TOOL_ARGUMENT_ERRORS_LISTED } from "./limits.ts";

/** The reason a call's arguments break the tool's schema, or null when they fit. */
export type ArgsCheck = (args: Record<string, unknown>) => string | null;

/**
 * Plugin and MCP schemas are not ours: unknown keywords and formats are ignored rather than refused (a schema that
 * worked with the model keeps working), every violation is collected, and nothing is kept in the validator's
 * own cache (the caller holds the compiled check for as long as the tool's generation lives).
 */
const OPTIONS: Options = { strict: false, allErrors: true, validateFormats: false, addUsedSchema: false, validateSchema: false };

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Draft-07 (and -06/-04 by their URI) with ajv's draft-07 dialect; anything else, unmarked included, as 2020-12. */
function validatorFor(schema: Record<string, unknown>): Ajv {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0[4-7]/.test(dialect)) return (draft07 ??= new Ajv(OPTIONS));
  return (draft2020 ??= new Ajv2020(OPTIONS));
}

/** `a.b.0` from ajv's `/a/b/0`; `(arguments)` for the object itself. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
  return path || "(arguments)";
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  let detail = error.message ?? error.keyword;
  if (error.keyword === "additionalProperties") detail += `: "${String(params.additionalProperty)}"`;
  else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) detail += `: ${JSON.stringify(params.allowedValues)}`;
  else if (error.keyword === "const") detail += `: ${JSON.stringify(params.allowedValue)}`;
  if (error.keyword === "required") return `${String(params.missingProperty)}: is required`;
  return `${fieldOf(error)}: ${detail}`;
}

/** The errors as one line: `field: what is wrong; ...`, at most TOOL_ARGUMENT_ERRORS_LISTED of them. */
export function describeViolations(errors: readonly ErrorObject[]): string {
  const lines = [...new Set(errors.map(describe))];
  const listed = lines.slice(0, TOOL_ARGUMENT_ERRORS_LISTED).join("; ");
  return lines.length > TOOL_ARGUMENT_ERRORS_LISTED ? `${listed}; and ${lines.length - TOOL_ARGUMENT_ERRORS_LISTED} more` : listed;
}

/**
 * A JSON Schema compiled once: what is wrong with a value (`field: what breaks; ...`), or null when it fits. Throws
 * when the schema cannot be compiled.
 */
export function compileJsonSchema(schema: Record<string, unknown>): (value: unknown) => string | null {
  const ajv = validatorFor(schema);
  try {
    const validate: ValidateFunction = ajv.compile(schema);
    return (value) => (validate(value) ? null : describeViolations(validate.errors ?? []));
  } finally {
    // ajv keeps every compiled schema keyed by its object; the caller holds this check instead, so a reload frees it
    ajv.removeSchema(schema);
  }
}

/**
 * Compile a tool's declared JSON Schema once. A schema that does not compile refuses every call, naming why:
 * arguments are never passed to a tool unchecked.
 */
export function compileArgsCheck(tool: string, schema: Record<string, unknown>): ArgsCheck {
  let check: (value: unknown) => string | null;
  try {
    check = compileJsonSchema(schema);
  } catch (error) {
    const reason = `tool ${tool} declares a parameters schema that cannot be checked (${errorMessage(error)}); its author must fix the schema`;
    return () => reason;
  }
  return (args) => {
    const problem = check(args);
    return problem === null ? null : `invalid arguments for ${tool}: ${problem}`;
  };
}
