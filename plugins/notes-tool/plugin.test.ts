import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin({ config: { max_notes: "3" } });
afterAll(() => plugin.close());
const notes = plugin.tool("notes");

test("adds, lists, finds and deletes notes", async () => {
  expect((await notes.call({ action: "add", text: "buy oat milk", tags: ["shopping"] })).output).toBe("noted (#1)");
  expect((await notes.call({ action: "add", text: "call the dentist" })).output).toBe("noted (#2)");
  expect((await notes.call({ action: "list" })).output).toBe("#1 buy oat milk [shopping]\n#2 call the dentist");
  expect((await notes.call({ action: "find", query: "shopping" })).output).toBe("#1 buy oat milk [shopping]");
  expect((await notes.call({ action: "delete", id: 1 })).output).toBe("deleted #1");
  expect((await notes.call({ action: "find", query: "milk" })).output).toBe('no note matches "milk"');
});

test("keeps at most max_notes, dropping the oldest", async () => {
  for (const text of ["a", "b", "c", "d"]) await notes.call({ action: "add", text });
  expect((await notes.call({ action: "list" })).output).toBe("#4 b\n#5 c\n#6 d");
});

test("a wrong call is a failed result the model can read", async () => {
  expect(await notes.call({ action: "add", text: "  " })).toEqual({ ok: false, output: "", error: "a note needs some text", messages: [] });
  expect((await notes.call({ action: "shout" })).error).toContain('unknown action "shout"');
});
