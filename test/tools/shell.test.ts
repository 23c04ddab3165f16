import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createShellTool, SHELL_MAX_ARGS, SHELL_MAX_OUTPUT_BYTES, ToolRegistry } from "../../src/tools/index.ts";
import { ToolsSchema, type ToolsConfig } from "../../src/config/schema.ts";
import type { ToolContext } from "../../src/tools/types.ts";

function toolsConfig(overrides: Partial<ToolsConfig> = {}): ToolsConfig {
  return ToolsSchema.parse(overrides);
}

function context(workspace = "/nonexistent", signal: AbortSignal = new AbortController().signal): ToolContext {
  return { sessionId: "test-session", workspace, signal };
}

const workspace = mkdtempSync(join(tmpdir(), "prx-shell-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function shell(overrides: Parameters<typeof toolsConfig>[0]) {
  const registry = new ToolRegistry({ builtins: [createShellTool(toolsConfig(overrides), workspace)] });
  return (args: Record<string, unknown>, signal?: AbortSignal) =>
    registry.call("shell", JSON.stringify(args), context(workspace, signal));
}

const enabled = { shell_enabled: true, shell_allowlist: ["echo", "sleep", "pwd", "env", "head", "sh"] };

describe("shell", () => {
  test("disabled by default, with a message telling how to enable it", async () => {
    const result = await shell({})({ command: ["echo", "hi"] });
    expect(result.success).toBe(false);
    expect(result.error).toContain("shell_enabled = true");
  });

  test("runs allowlisted programs in the workspace; program+args form works too", async () => {
    const run = shell(enabled);
    const echo = await run({ command: ["echo", "hello"] });
    expect(echo).toMatchObject({ success: true });
    expect(echo.output).toContain("exit code: 0\nhello");
    expect((await run({ program: "pwd" })).output).toContain(realpathSync(workspace));
    expect((await run({ program: "echo", args: ["a", "b"] })).output).toContain("a b");
  });

  test("programs outside the allowlist are refused, by basename or path", async () => {
    const run = shell(enabled);
    for (const command of [["ls"], ["/bin/ls"], ["./echo"], ["/tmp/echo"]]) {
      const result = await run({ command });
      expect(result.success).toBe(false);
      expect(result.error).toContain("shell_allowlist");
    }
  });

  test("no shell interpretation: ; | $ and quotes are literal arguments", async () => {
    const result = await shell(enabled)({ command: ["echo", "a; rm -rf /", "|", "$HOME", "`id`", "'q'"] });
    expect(result.output).toContain("a; rm -rf / | $HOME `id` 'q'");
  });

  test("secrets in the environment are withheld from the child", async () => {
    process.env.PRX_TEST_SECRET_KEY = "sk-should-not-leak";
    try {
      const result = await shell(enabled)({ command: ["env"] });
      expect(result.success).toBe(true);
      expect(result.output).not.toContain("sk-should-not-leak");
      expect(result.output).toContain("PATH=");
    } finally {
      delete process.env.PRX_TEST_SECRET_KEY;
    }
  });

  test("a timeout kills the process and everything it started", async () => {
    const run = shell({ ...enabled, shell_timeout_ms: 100 });
    const direct = await run({ command: ["sleep", "30"] });
    expect(direct.success).toBe(false);
    expect(direct.error).toContain("timed out after 100 ms");
    // sh keeps stdout open in its background child: only a process-group kill lets the call finish
    const group = await run({ command: ["sh", "-c", "sleep 30 & sleep 30"] });
    expect(group.error).toContain("timed out");
  });

  test("aborting the turn kills the process", async () => {
    const controller = new AbortController();
    const pending = shell(enabled)({ command: ["sleep", "30"] }, controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), 50);
    const result = await pending;
    expect(result.success).toBe(false);
  });

  test("a non-zero exit is an error result carrying the output", async () => {
    const result = await shell(enabled)({ command: ["sh", "-c", "echo out; echo err >&2; exit 3"] });
    expect(result.success).toBe(false);
    expect(result.error).toContain("code 3");
    expect(result.output).toContain("out");
    expect(result.output).toContain("--- stderr ---\nerr");
  });

  test("stdout at the cap is kept whole and past it the rest is dropped", async () => {
    const run = shell(enabled);
    // boolean checks: a failing toContain would print 30 KiB of output
    const at = await run({ command: ["head", "-c", String(SHELL_MAX_OUTPUT_BYTES), "/dev/zero"] });
    expect(at.success).toBe(true);
    expect(at.output.includes("dropped")).toBe(false);
    expect(at.output.includes("truncated")).toBe(false);
    const past = await run({ command: ["head", "-c", String(SHELL_MAX_OUTPUT_BYTES + 1), "/dev/zero"] });
    expect(past.output.includes("[... 1 more bytes dropped ...]")).toBe(true);
    expect(past.output.includes("truncated")).toBe(false);
  });

  test("argument count at SHELL_MAX_ARGS passes and one past fails", async () => {
    const run = shell(enabled);
    const args = Array.from({ length: SHELL_MAX_ARGS - 1 }, () => "x");
    expect((await run({ command: ["echo", ...args] })).success).toBe(true);
    const past = await run({ command: ["echo", ...args, "x"] });
    expect(past.success).toBe(false);
    expect(past.error).toContain("invalid arguments");
  });

  test("both command and program is an argument error", async () => {
    const result = await shell(enabled)({ command: ["echo"], program: "echo" });
    expect(result.error).toContain("either command");
  });
});
