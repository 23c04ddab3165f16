/**
 * What a session holds of a turn cut off after writing its user message, found by the seq its inbox row recorded: the
 * answer is the turn's own (before the next user message), and a turn whose message is no longer the session's last
 * runs on from it.
 */
import { expect, test } from "bun:test";
import { startedTurn } from "../../src/agent/started-turn.ts";
import type { StoredMessage } from "../../src/storage/types.ts";

const at = (seq: number, role: StoredMessage["role"], content: string, calls = false): StoredMessage => ({
  seq,
  role,
  content,
  ...(calls ? { toolCalls: [{ id: "c", name: "shell", arguments: "{}" }] } : {}),
  createdAt: "",
});
const isUser = (m: StoredMessage) => m.role === "user";

test("the answer after the marked message, past its tool rounds; the session ends with the turn: no anchor", () => {
  const tail = [at(1, "user", "older"), at(2, "assistant", "older answer"), at(3, "user", "asked"), at(4, "assistant", "", true), at(5, "tool", "ran"), at(6, "assistant", "answer")];
  expect(startedTurn(tail, 3, isUser)).toEqual({ answer: "answer" });
  // cut off after a round: no answer, the turn runs on from the session as usual
  expect(startedTurn(tail.slice(0, 5), 3, isUser)).toEqual({ answer: null });
});

test("another turn after the marked one: its answer is not taken, and the turn runs on from its own message", () => {
  const other = [at(4, "user", "another"), at(5, "assistant", "another answer")];
  expect(startedTurn([at(3, "user", "asked"), ...other], 3, isUser)).toEqual({ answer: null, at: 3 });
  expect(startedTurn([at(3, "user", "asked"), at(4, "assistant", "answer"), ...other.map((m) => ({ ...m, seq: m.seq + 1 }))], 3, isUser)).toEqual({
    answer: "answer",
    at: 3,
  });
});

test("the marked message not among those read: no answer, the turn runs on from it", () => {
  expect(startedTurn([at(9, "assistant", "reminder")], 3, isUser)).toEqual({ answer: null, at: 3 });
  expect(startedTurn([], 3, isUser)).toEqual({ answer: null, at: 3 });
});

test("a row started before the seq was recorded: the last message the caller names is the turn's", () => {
  const tail = [at(1, "user", "asked"), at(2, "assistant", "answer"), at(3, "assistant", "reminder")];
  expect(startedTurn(tail, null, isUser)).toEqual({ answer: "answer" });
  expect(startedTurn(tail, null, (m) => m.content === "nothing")).toEqual({ answer: null });
});
