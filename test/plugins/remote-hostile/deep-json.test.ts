/**
 * A plugin writing protocol lines nested too deeply: each is refused before it is parsed, counted as malformed with
 * an error naming the limit, and the plugin keeps serving (both transports).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { getLogLevel, setLogLevel } from "../../../src/core/logger.ts";
import { REMOTE_MAX_MESSAGE_DEPTH } from "../../../src/plugins/remote/limits.ts";
import { startHostile, TRANSPORTS, type Hostile } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";

const level = getLogLevel();
beforeAll(() => setLogLevel("silent"));
afterAll(() => setLogLevel(level));

const running: Hostile[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

describe.each(TRANSPORTS)("over %s", (transport) => {
  test(`REMOTE_MAX_MESSAGE_DEPTH = ${REMOTE_MAX_MESSAGE_DEPTH}: a line at it is read, one level more and 100,000 levels are refused`, async () => {
    const h = await startHostile(transport);
    running.push(h);
    expect((await h.act("DEEP", { depth: REMOTE_MAX_MESSAGE_DEPTH })).output).toBe("sent");
    // a line read after it proves it was handled: the answer to the next call comes behind it
    expect((await h.act("NOOP")).output).toBe("ok");
    expect(h.handle.status().malformed).toBe(0);
    expect((await h.act("DEEP", { depth: REMOTE_MAX_MESSAGE_DEPTH + 1 })).output).toBe("sent");
    await waitFor(() => h.handle.status().malformed === 1, "the line one level past the limit refused");
    expect(h.handle.status().lastError).toContain(`JSON nesting deeper than ${REMOTE_MAX_MESSAGE_DEPTH} levels`);
    expect((await h.act("DEEP", { depth: 100_000 })).output).toBe("sent");
    await waitFor(() => h.handle.status().malformed === 2, "the 100,000-level line refused");
    expect((await h.act("NOOP")).output).toBe("ok");
    expect(h.handle.status().state).toBe("ready");
  }, 30_000);
});
