/** file_edit: one exact replacement inside the workspace, refused when the text is missing, repeated or the file would outgrow its cap. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolsSchema } from "../../src/config/schema.ts";
import { createFileTools, ToolRegistry } from "../../src/tools/index.ts";

const MAX = 1024;
const base = mkdtempSync(join(tmpdir(), "prx-edit-"));
const workspace = join(base, "ws");
mkdirSync(workspace);
mkdirSync(join(base, "outside"));
writeFileSync(join(base, "outside", "secret.txt"), "top secret");
symlinkSync(join(base, "outside", "secret.txt"), join(workspace, "escape"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const registry = new ToolRegistry({ builtins: createFileTools(ToolsSchema.parse({ file_max_bytes: MAX }), workspace) });
const context = { sessionId: "s", workspace, signal: new AbortController().signal };
const edit = (args: Record<string, unknown>) => registry.call("file_edit", JSON.stringify(args), context);
const file = (name: string, text: string) => {
  writeFileSync(join(workspace, name), text);
  return name;
};
const contents = (name: string) => readFileSync(join(workspace, name), "utf8");

describe("file_edit", () => {
  test("replaces the one occurrence and says where", async () => {
    const name = file("a.txt", "one\ntwo\nthree\n");
    const result = await edit({ path: name, old_text: "two", new_text: "2" });
    expect(result.success).toBe(true);
    expect(result.output).toContain("line 2");
    expect(contents(name)).toBe("one\n2\nthree\n");
  });

  test("missing old text fails and leaves the file as it was", async () => {
    const name = file("b.txt", "alpha beta");
    const result = await edit({ path: name, old_text: "gamma", new_text: "x" });
    expect(result.success).toBe(false);
    expect(result.error).toContain("old_text was not found");
    expect(contents(name)).toBe("alpha beta");
  });

  test("ambiguous old text fails naming both lines", async () => {
    const name = file("c.txt", "x = 1\ny = 2\nx = 1\n");
    const result = await edit({ path: name, old_text: "x = 1", new_text: "x = 3" });
    expect(result.success).toBe(false);
    expect(result.error).toContain("more than once");
    expect(result.error).toContain("lines 1 and 3");
    expect(contents(name)).toBe("x = 1\ny = 2\nx = 1\n");
  });

  test("the file after the edit may be file_max_bytes, not one byte more", async () => {
    const name = file("d.txt", "a".repeat(MAX - 1) + "#");
    expect((await edit({ path: name, old_text: "#", new_text: "b" })).success).toBe(true);
    expect(contents(name).length).toBe(MAX);
    const over = await edit({ path: name, old_text: "b", new_text: "bb" });
    expect(over.success).toBe(false);
    expect(over.error).toContain(`${MAX + 1} bytes, over tools.file_max_bytes (${MAX})`);
    expect(contents(name).length).toBe(MAX);
  });

  test("confined like file_write: no missing file, no symlink out, no path prx manages", async () => {
    expect((await edit({ path: "nope.txt", old_text: "a", new_text: "b" })).error).toContain("does not exist");
    expect((await edit({ path: "escape", old_text: "top", new_text: "x" })).error).toContain("outside the workspace");
    expect(readFileSync(join(base, "outside", "secret.txt"), "utf8")).toBe("top secret");
    file("config.toml", "[tools]\nshell_enabled = false\n");
    expect((await edit({ path: "config.toml", old_text: "false", new_text: "true" })).error).toContain("managed by prx");
    expect((await edit({ path: "../outside/secret.txt", old_text: "top", new_text: "x" })).error).toContain("outside the workspace");
  });

  test("its schema is checked at the boundary: empty old_text, unknown keys and missing new_text are refused", async () => {
    const name = file("e.txt", "abc");
    for (const args of [{ path: name, old_text: "", new_text: "x" }, { path: name, old_text: "a", new_text: "x", extra: 1 }, { path: name, old_text: "a" }]) {
      const result = await edit(args);
      expect([result.success, result.error?.startsWith("invalid arguments for file_edit")]).toEqual([false, true]);
    }
    expect(contents(name)).toBe("abc");
  });
});
