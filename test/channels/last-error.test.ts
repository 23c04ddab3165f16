/** A channel's last error: every warning and error of its logger, with its time, cut at CHANNEL_LAST_ERROR_MAX_CHARS. */
import { expect, test } from "bun:test";
import { LastError, recordingLogger, type LastErrorRecord } from "../../src/channels/last-error.ts";
import { CHANNEL_LAST_ERROR_MAX_CHARS } from "../../src/channels/limits.ts";
import type { Logger } from "../../src/core/logger.ts";

function memoryLogger(lines: string[], scope = "channel.tg"): Logger {
  const at = (level: string) => (message: string) => void lines.push(`${level} [${scope}] ${message}`);
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: (sub) => memoryLogger(lines, `${scope}.${sub}`) };
}

test("warnings and errors (of child loggers too) become the last error with their time; info does not", () => {
  let now = 1000;
  const seen: LastErrorRecord[] = [];
  const last = new LastError((record) => seen.push(record), () => now);
  const lines: string[] = [];
  const logger = recordingLogger(memoryLogger(lines), last);
  logger.info("connected");
  expect(last.current).toBeNull();
  logger.warn("getUpdates failed: 409 Conflict");
  now = 2000;
  logger.child("poll").error("turn failed");
  expect(seen).toEqual([
    { message: "getUpdates failed: 409 Conflict", at: 1000 },
    { message: "turn failed", at: 2000 },
  ]);
  expect(last.current).toEqual({ message: "turn failed", at: 2000 });
  // the lines are logged as before
  expect(lines).toEqual(["info [channel.tg] connected", "warn [channel.tg] getUpdates failed: 409 Conflict", "error [channel.tg.poll] turn failed"]);
});

test(`a last error of exactly ${CHANNEL_LAST_ERROR_MAX_CHARS} characters is kept whole; one more is cut to the cap`, () => {
  const last = new LastError();
  last.record("x".repeat(CHANNEL_LAST_ERROR_MAX_CHARS));
  expect(last.current!.message).toBe("x".repeat(CHANNEL_LAST_ERROR_MAX_CHARS));
  last.record("y".repeat(CHANNEL_LAST_ERROR_MAX_CHARS + 1));
  expect(last.current!.message).toBe(`${"y".repeat(CHANNEL_LAST_ERROR_MAX_CHARS - 3)}...`);
  expect(last.current!.message.length).toBe(CHANNEL_LAST_ERROR_MAX_CHARS);
});
