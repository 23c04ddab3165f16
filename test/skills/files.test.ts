/** A skill folder is readable by file_read (by its full path, confined to that folder), never writable by the agent. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolsSchema } from "../../src/config/schema.ts";
import { createFileTools, ToolRegistry } from "../../src/tools/index.ts";
import { writeSkill } from "./helpers.ts";

const base = realpathSync(mkdtempSync(join(tmpdir(), "prx-skills-files-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const workspace = join(base, "ws");
mkdirSync(workspace);
const userSkill = writeSkill(join(base, "home", ".agents", "skills"), "helper", undefined, { "references/notes.md": "the notes" });
const workspaceSkill = writeSkill(join(workspace, "skills"), "local");
writeFileSync(join(base, "secret.txt"), "top secret");
symlinkSync(join(base, "secret.txt"), join(userSkill, "escape.md"));

const registry = new ToolRegistry({ builtins: createFileTools(ToolsSchema.parse({}), workspace, () => [userSkill, workspaceSkill]) });
const context = { sessionId: "s", workspace, signal: new AbortController().signal };
const call = (tool: string, args: Record<string, unknown>) => registry.call(tool, JSON.stringify(args), context);

test("file_read reads a file of an offered skill's folder outside the workspace by its full path", async () => {
  expect(await call("file_read", { path: join(userSkill, "references", "notes.md") })).toMatchObject({ success: true, output: "the notes" });
  expect((await call("file_read", { path: join(workspaceSkill, "SKILL.md") })).output).toContain("name: local");
});

test("nothing else outside the workspace is read: not beside the skill, not through a link in it", async () => {
  const beside = await call("file_read", { path: join(base, "secret.txt") });
  expect(beside.success).toBe(false);
  expect(beside.error).toContain("outside the workspace");
  const linked = await call("file_read", { path: join(userSkill, "escape.md") });
  expect(linked.success).toBe(false);
  expect(linked.error).toContain("symlink");
});

test("file_write and file_edit never change a skill, in the workspace or outside it", async () => {
  const inWorkspace = await call("file_write", { path: "skills/local/SKILL.md", content: "rewritten" });
  expect(inWorkspace.error).toContain("skills is managed by prx");
  const edit = await call("file_edit", { path: "skills/local/SKILL.md", old_text: "local", new_text: "x" });
  expect(edit.success).toBe(false);
  const outside = await call("file_write", { path: join(userSkill, "SKILL.md"), content: "rewritten" });
  expect(outside.error).toContain("outside the workspace");
  const newSkill = await call("file_write", { path: "skills/made-up/SKILL.md", content: "---\nname: made-up\n---\n" });
  expect(newSkill.success).toBe(false);
  expect(readFileSync(join(userSkill, "SKILL.md"), "utf8")).toContain("name: helper");
});
