/** The workspace paths a channel process reads its config through before it opens anything (core/workspace-paths.ts). */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plainWorkspacePaths, plainWorkspaceRoot } from "../../src/core/workspace-paths.ts";
import { openWorkspace } from "../../src/core/workspace.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "prx-workspace-paths-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("for a root openWorkspace leaves as it is, the plain paths are the ones it returns", () => {
  const root = join(dir, "ws");
  expect(plainWorkspaceRoot(root)).toBe(root);
  expect(plainWorkspacePaths(root)).toEqual(openWorkspace(root));
});

test("the flag, then PRX_WORKSPACE, then $HOME/.prx; anything path.resolve would change is left to openWorkspace", () => {
  expect(plainWorkspaceRoot(undefined, { PRX_WORKSPACE: "/srv/prx", HOME: "/home/a" })).toBe("/srv/prx");
  expect(plainWorkspaceRoot(undefined, { HOME: "/home/a" })).toBe("/home/a/.prx");
  expect(plainWorkspaceRoot("/opt/x", { PRX_WORKSPACE: "/srv/prx" })).toBe("/opt/x");
  for (const given of ["ws", "./ws", "/a/../b", "/a/./b", "/a//b", "/a/", "/", "", "C:\\prx"]) expect(plainWorkspaceRoot(given, {})).toBeNull();
  expect(plainWorkspaceRoot("/a/...b/..c")).toBe("/a/...b/..c");
  expect(plainWorkspaceRoot(undefined, {})).toBeNull();
});
