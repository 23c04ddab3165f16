/**
 * A 500 in the gateway's log: the message at error level (as before), and at debug level the stacks of the error and
 * of the errors it was made from, each cause with its own code (SQLite's extended one), so an unexpected error names
 * where it was thrown.
 */
import { expect, test } from "bun:test";
import { PrxError, toPrxError } from "../../src/core/errors.ts";
import { FAILURE_STACK_MAX_CAUSES, failureResponse, failureStack } from "../../src/gateway/errors.ts";

function recordingLogger() {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, fields });
  return { lines, logger: { error: at("error"), warn: at("warn"), debug: at("debug") } };
}

/** An error as bun:sqlite throws it: a name, SQLite's extended code, thrown where the statement ran. */
function sqliteError(): Error {
  const error = new Error("database is locked");
  error.name = "SQLiteError";
  Object.assign(error, { code: "SQLITE_BUSY_SNAPSHOT" });
  return error;
}

function appendMessages(): never {
  throw sqliteError();
}

test("a 500 logs its message at error level and its stack, through its causes, at debug level", () => {
  let thrown: unknown;
  try {
    appendMessages();
  } catch (error) {
    thrown = error;
  }
  const failure = toPrxError(thrown);
  const { lines, logger } = recordingLogger();
  const response = failureResponse("/api/sessions/a/message", failure, "req-1", logger);
  expect(response.status).toBe(500);
  expect(lines.map((l) => [l.level, l.message, l.fields?.code])).toEqual([
    ["error", "database is locked", "INTERNAL"],
    ["debug", "database is locked", "INTERNAL"],
  ]);
  expect(lines[0]!.fields).toEqual({ id: "req-1", code: "INTERNAL" });
  const stack = String(lines[1]!.fields?.stack);
  expect(stack).toContain("caused by (SQLITE_BUSY_SNAPSHOT): SQLiteError: database is locked");
  expect(stack).toContain("at appendMessages");
});

test("a failure that is not a 500 logs no stack", () => {
  const { lines, logger } = recordingLogger();
  failureResponse("/api/x", new PrxError("NOT_FOUND", "no such session"), "req-2", logger);
  expect(lines).toEqual([]);
});

test(`the logged stack follows ${FAILURE_STACK_MAX_CAUSES} causes, not one more, and a cycle of causes ends`, () => {
  const chain = (causes: number): Error => {
    let error = new Error(`cause ${causes}`);
    for (let i = causes - 1; i >= 0; i--) error = new Error(i === 0 ? "failure" : `cause ${i}`, { cause: error });
    return error;
  };
  expect(failureStack(chain(FAILURE_STACK_MAX_CAUSES))).toContain(`Error: cause ${FAILURE_STACK_MAX_CAUSES}`);
  const past = failureStack(chain(FAILURE_STACK_MAX_CAUSES + 1));
  expect(past).toContain(`Error: cause ${FAILURE_STACK_MAX_CAUSES}`);
  expect(past).not.toContain(`Error: cause ${FAILURE_STACK_MAX_CAUSES + 1}`);
  const looped = new Error("looped");
  looped.cause = looped;
  expect(failureStack(looped).split("caused by: Error: looped").length - 1).toBe(FAILURE_STACK_MAX_CAUSES);
});
