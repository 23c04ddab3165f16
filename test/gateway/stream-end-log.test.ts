import { afterEach, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { createLogger, getLogLevel, getLogSink, setLogLevel, setLogSink } from "../../src/core/logger.ts";
import { logStreamEnd } from "../../src/gateway/errors.ts";

const [sink, level] = [getLogSink(), getLogLevel()];
afterEach(() => {
  setLogSink(sink);
  setLogLevel(level);
});

test("a stream its client stopped is information; any other end is a warning with its code", () => {
  const lines: string[] = [];
  setLogSink((line) => void lines.push(line));
  setLogLevel("info");
  const logger = createLogger("gateway");
  logStreamEnd(logger, "streamed chat completion", new PrxError("ABORTED", "the client went away"));
  logStreamEnd(logger, "streamed chat completion", new PrxError("PROVIDER_TIMEOUT", "no answer in 120 s"));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/INFO .*streamed chat completion stopped: the client went away/);
  expect(lines[1]).toMatch(/WARN .*streamed chat completion failed: no answer in 120 s.*PROVIDER_TIMEOUT/);
});
