import { describe, expect, test } from "bun:test";
import { RECAP_MAX_CHARS, RECAP_MAX_MESSAGES, recapLines } from "../../src/chat/index.ts";
import type { StoredMessage } from "../../src/storage/types.ts";

let seq = 0;
const message = (role: StoredMessage["role"], content: string): StoredMessage => ({ seq: seq++, role, content, createdAt: "" });

describe("where you left off", () => {
  test(`the last ${RECAP_MAX_MESSAGES} things said, tool traffic and empty assistant turns left out`, () => {
    const lines = recapLines([
      message("user", "one"),
      message("assistant", "answer one"),
      message("user", "two"),
      message("assistant", ""),
      message("tool", "{\"ok\":true}"),
      message("assistant", "answer\n  two"),
      message("user", "three"),
    ]);
    expect(lines).toEqual(["prx> answer one", "you> two", "prx> answer two", "you> three"]);
  });

  test(`a message of ${RECAP_MAX_CHARS} characters is shown whole; one more is cut`, () => {
    const exact = "a".repeat(RECAP_MAX_CHARS);
    expect(recapLines([message("user", exact)])).toEqual([`you> ${exact}`]);
    expect(recapLines([message("user", `${exact}b`)])).toEqual([`you> ${exact}…`]);
  });
});
