/**
 * A plugin writing protocol lines nested too deeply: each is refused before it is parsed, counted as malformed with
 * an error naming the limit, and the plugin keeps serving (both transports).
 */
import { describe, expect, test } from "bun:test";
import { REMOTE_MAX_MESSAGE_DEPTH } from "../../../src/plugins/remote/limits.ts";
import { startHostile, TRANSPORTS, withLogs } from "./helpers.ts";
import { waitFor } from "../../helpers/wait.ts";

const TOO_DEEP = `JSON nesting deeper than ${REMOTE_MAX_MESSAGE_DEPTH} levels`;

describe.each(TRANSPORTS)("over %s", (transport) => {
  test(`REMOTE_MAX_MESSAGE_DEPTH = ${REMOTE_MAX_MESSAGE_DEPTH}: a line at it is read, one level more and 100,000 levels are refused`, async () => {
    await withLogs("error", async (logs) => {
      const h = await startHostile(transport);
      try {
        expect((await h.act("DEEP", { depth: REMOTE_MAX_MESSAGE_DEPTH })).output).toBe("sent");
        // the answer to the next call comes behind the line: it was handled by then
        expect((await h.act("NOOP")).output).toBe("ok");
        expect(h.handle.status().malformed).toBe(0);
        expect((await h.act("DEEP", { depth: REMOTE_MAX_MESSAGE_DEPTH + 1 })).output).toBe("sent");
        await waitFor(() => h.handle.status().malformed === 1, "the line one level past the limit refused");
        expect(h.handle.status().lastError).toContain(TOO_DEEP);
        expect((await h.act("DEEP", { depth: 100_000 })).output).toBe("sent");
        await waitFor(() => h.handle.status().malformed === 2, "the 100,000-level line refused");
        expect((await h.act("NOOP")).output).toBe("ok");
        expect(h.handle.status().state).toBe("ready");
        expect(logs.some((l) => l.includes("[remote.hostile] refused") && l.includes(TOO_DEEP))).toBe(true);
      } finally {
        await h.stop();
      }
    });
  }, 30_000);

  test("a handler result nested past the limit becomes an error reply naming it, at once", async () => {
    await withLogs("error", async () => {
      const h = await startHostile(transport);
      try {
        const failed = await h.act("DEEPRESULT", { depth: 1_000 });
        expect(failed.success).toBe(false);
        expect(failed.error).toContain(TOO_DEEP);
        expect((await h.act("NOOP")).output).toBe("ok");
        expect(h.handle.status().malformed).toBe(0);
      } finally {
        await h.stop();
      }
    });
  }, 30_000);
});
