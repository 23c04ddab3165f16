import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileTools, ToolRegistry } from "../../src/tools/index.ts";
import { ToolsSchema, type ToolsConfig } from "../../src/config/schema.ts";
import type { ToolContext } from "../../src/tools/types.ts";

function toolsConfig(overrides: Partial<ToolsConfig> = {}): ToolsConfig {
  return ToolsSchema.parse(overrides);
}

function context(workspace = "/nonexistent", signal: AbortSignal = new AbortController().signal): ToolContext {
  return { sessionId: "test-session", workspace, signal };
}

const MAX = 1024;
const base = mkdtempSync(join(tmpdir(), "prx-files-"));
const workspace = join(base, "ws");
const outside = join(base, "outside");
mkdirSync(workspace);
mkdirSync(outside);
writeFileSync(join(outside, "secret.txt"), "top secret");
writeFileSync(join(workspace, "hello.txt"), "hello");
mkdirSync(join(workspace, "inner"));
writeFileSync(join(workspace, "inner", "note.txt"), "inner note");
symlinkSync(outside, join(workspace, "escape-dir"));
symlinkSync(join(outside, "secret.txt"), join(workspace, "escape-file"));
symlinkSync(join(workspace, "inner"), join(workspace, "inner-link"));
symlinkSync(join(outside, "missing.txt"), join(workspace, "dangling"));

afterAll(() => rmSync(base, { recursive: true, force: true }));

const registry = new ToolRegistry({ builtins: createFileTools(toolsConfig({ file_max_bytes: MAX }), workspace) });
const read = (path: string) => registry.call("file_read", JSON.stringify({ path }), context(workspace));
const write = (path: string, content: string, append?: boolean) =>
  registry.call("file_write", JSON.stringify({ path, content, append }), context(workspace));

describe("file_read", () => {
  test("reads files inside the workspace, also through symlinks that stay inside", async () => {
    expect(await read("hello.txt")).toMatchObject({ success: true, output: "hello" });
    expect((await read("inner/note.txt")).output).toBe("inner note");
    expect((await read("inner-link/note.txt")).output).toBe("inner note");
    expect((await read(join(workspace, "hello.txt"))).output).toBe("hello");
  });

  test("refuses .. escapes, absolute paths outside and symlinks leading outside", async () => {
    for (const path of ["../outside/secret.txt", "inner/../../outside/secret.txt", join(outside, "secret.txt"),
      "escape-dir/secret.txt", "escape-file", "dangling", "/etc/passwd"]) {
      const result = await read(path);
      expect(result.success).toBe(false);
      expect(result.error).toContain("refused");
      expect(result.output).not.toContain("top secret");
    }
  });

  test("refuses secrets.env and data/ (keys, the database, the gateway's control token), also through a symlink inside", async () => {
    writeFileSync(join(workspace, "secrets.env"), "OPENAI_API_KEY=top secret\n");
    mkdirSync(join(workspace, "data"), { recursive: true });
    writeFileSync(join(workspace, "data", "gateway.json"), '{"token":"top secret"}');
    symlinkSync(join(workspace, "secrets.env"), join(workspace, "keys-link"));
    for (const path of ["secrets.env", "./secrets.env", "data/gateway.json", "inner/../data/gateway.json", "keys-link"]) {
      const result = await read(path);
      expect(result.success).toBe(false);
      expect(result.error).toContain("holds prx's secrets");
      expect(result.output).not.toContain("top secret");
    }
  });

  test("missing files and directories are errors", async () => {
    expect((await read("nope.txt")).error).toContain("does not exist");
    expect((await read("inner")).success).toBe(false);
  });

  test("size at file_max_bytes passes and one byte past fails", async () => {
    writeFileSync(join(workspace, "at.txt"), "a".repeat(MAX));
    writeFileSync(join(workspace, "past.txt"), "a".repeat(MAX + 1));
    expect((await read("at.txt")).output.length).toBe(MAX);
    const past = await read("past.txt");
    expect(past.success).toBe(false);
    expect(past.error).toContain("file_max_bytes");
  });
});

describe("file_write", () => {
  test("writes, replaces, appends and creates directories inside the workspace", async () => {
    expect((await write("out/deep/a.txt", "one")).success).toBe(true);
    expect(readFileSync(join(workspace, "out/deep/a.txt"), "utf8")).toBe("one");
    await write("out/deep/a.txt", "two");
    await write("out/deep/a.txt", "three", true);
    expect(readFileSync(join(workspace, "out/deep/a.txt"), "utf8")).toBe("twothree");
    expect((await write("inner-link/via-link.txt", "ok")).success).toBe(true);
    expect(readFileSync(join(workspace, "inner", "via-link.txt"), "utf8")).toBe("ok");
  });

  test("refuses escapes and symlinks leading outside, leaving outside untouched", async () => {
    for (const path of ["../outside/pwn.txt", join(outside, "pwn.txt"), "escape-dir/pwn.txt", "escape-dir/new/pwn.txt",
      "escape-file", "dangling"]) {
      const result = await write(path, "pwned");
      expect(result.success).toBe(false);
      expect(result.error).toContain("refused");
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
    expect(existsSync(join(outside, "pwn.txt"))).toBe(false);
    expect(existsSync(join(outside, "new"))).toBe(false);
    expect(existsSync(join(outside, "missing.txt"))).toBe(false);
  });

  test("refuses files prx manages (config, hooks, database, plugins)", async () => {
    for (const path of ["config.toml", "hooks.json", "data/prx.db", "plugins/x/plugin.toml"]) {
      const result = await write(path, "x");
      expect(result.success).toBe(false);
      expect(result.error).toContain("managed by prx");
    }
    expect(existsSync(join(workspace, "plugins"))).toBe(false);
    writeFileSync(join(workspace, "config.toml"), "# config");
    symlinkSync(join(workspace, "config.toml"), join(workspace, "cfg-link"));
    expect((await write("cfg-link", "x")).error).toContain("managed by prx");
    expect(readFileSync(join(workspace, "config.toml"), "utf8")).toBe("# config");
  });

  test("content at file_max_bytes passes, one past fails, and append cannot grow past it", async () => {
    expect((await write("cap.txt", "c".repeat(MAX))).success).toBe(true);
    const past = await write("cap2.txt", "c".repeat(MAX + 1));
    expect(past.success).toBe(false);
    expect(past.error).toContain("file_max_bytes");
    expect(existsSync(join(workspace, "cap2.txt"))).toBe(false);
    const grow = await write("cap.txt", "c", true);
    expect(grow.success).toBe(false);
    expect(readFileSync(join(workspace, "cap.txt"), "utf8").length).toBe(MAX);
  });
});
