/**
 * Servers start on first use (or once to learn their tools), come back after a crash, fail clearly when they cannot
 * start, change their tool list without a restart, log their stderr under their name, and leave no process behind.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../src/core/errors.ts";
import { MCP_KILL_GRACE_MS, MCP_STDERR_LINE_MAX_BYTES, MCP_STDERR_TAIL_LINES } from "../../src/mcp/limits.ts";
import type { McpManager } from "../../src/mcp/manager.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { alive, captureLog, fixture, managerFor, toolContext, workspaces } from "./helpers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const spaces = workspaces();
const opened: McpManager[] = [];
afterAll(async () => {
  await Promise.all(opened.map((m) => m.close()));
  spaces.cleanup();
});

function open(servers: Record<string, Record<string, unknown>>, workspace = spaces.make()) {
  const manager = managerFor(servers, workspace);
  opened.push(manager);
  const registry = new ToolRegistry({ builtins: [] });
  registry.addSource(manager);
  const call = (name: string, args: unknown = {}) => registry.call(name, JSON.stringify(args), toolContext(workspace.root));
  return { manager, registry, call, workspace };
}

const starts = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).length : 0);

describe("starting", () => {
  test("a server whose tools are cached is not started by listing; its first call starts it", async () => {
    const workspace = spaces.make();
    const file = join(workspace.root, "starts");
    const first = open({ fx: fixture(["--starts-file", file]) }, workspace);
    await first.manager.handle("fx").listTools();
    await first.manager.close();
    expect(starts(file)).toBe(1);

    const { manager, registry, call } = open({ fx: fixture(["--starts-file", file]) }, workspace);
    expect(registry.names()).toContain("mcp__fx__echo");
    expect(manager.handle("fx").toolsFrom).toBe("cache");
    expect(manager.handle("fx").state).toBe("stopped");
    expect(starts(file)).toBe(1);
    expect((await call("mcp__fx__echo", { text: "first use" })).output).toBe("first use");
    expect(starts(file)).toBe(2);
    expect(manager.handle("fx").state).toBe("ready");
  });

  test("a server never read is started once in the background; listing does not wait for it", async () => {
    const { manager, registry } = open({ fx: fixture() });
    expect(registry.specs()).toEqual([]);
    await waitFor(() => registry.names().includes("mcp__fx__echo"), "the background discovery");
    expect(manager.handle("fx").toolsFrom).toBe("server");
  });

  test("a server that cannot start fails its call naming the server, its stderr and the fix; a working one is unaffected", async () => {
    const { manager, call } = open({ good: fixture(), broken: fixture(["--crash-on-start"]) });
    await manager.handle("good").listTools();
    const handle = manager.handle("broken");
    let error: unknown;
    await handle.call("echo", {}).catch((e: unknown) => (error = e));
    expect(isPrxError(error, "MCP_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toBe(
      'MCP server "broken" did not start: it exited with code 2; its last stderr lines: fixture: cannot start, missing FIXTURE_TOKEN',
    );
    expect((error as { hint?: string }).hint).toContain("check [mcp.servers.broken] in config.toml");
    expect(handle.state).toBe("failed");
    // within the backoff the next call fails at once, saying when prx tries again
    await handle.call("echo", {}).catch((e: unknown) => (error = e));
    expect((error as Error).message).toMatch(/^MCP server "broken" is not available: .*prx tries again in \d+ s$/s);
    expect((await call("mcp__good__echo", { text: "fine" })).output).toBe("fine");
  });

  test("a variable named in env_from must be set; the error names it", async () => {
    const { manager } = open({ fx: fixture([], { env_from: { TOKEN: "PRX_TEST_MCP_UNSET_VARIABLE" } }) });
    let error: unknown;
    await manager.handle("fx").call("echo", {}).catch((e: unknown) => (error = e));
    expect((error as Error).message).toBe(
      'MCP server "fx" needs PRX_TEST_MCP_UNSET_VARIABLE in prx\'s environment (env_from TOKEN), and it is not set',
    );
  });

  test("a command that is not on PATH says so", async () => {
    const { manager } = open({ fx: { command: "prx-no-such-mcp-server" } });
    let error: unknown;
    await manager.handle("fx").call("echo", {}).catch((e: unknown) => (error = e));
    expect((error as Error).message).toBe('MCP server "fx": command "prx-no-such-mcp-server" is not on PATH');
  });
});

describe("running", () => {
  test("a server that crashes mid-call fails that call clearly, is restarted, and serves the next call", async () => {
    const { manager, call } = open({ fx: fixture() });
    const handle = manager.handle("fx");
    await handle.listTools();
    const pid = handle.pid!;
    const crashed = await call("mcp__fx__crash");
    expect(crashed.success).toBe(false);
    expect(crashed.error).toContain('MCP server "fx" stopped during tool "crash": it stopped: it exited with code 3');
    expect(crashed.error).toMatch(/prx restarts it in \d+ ms; call the tool again/);
    await waitFor(() => handle.state === "ready", "the restart");
    expect(handle.restarts).toBe(1);
    expect(handle.pid).not.toBe(pid);
    expect((await call("mcp__fx__echo", { text: "after the crash" })).output).toBe("after the crash");
  });

  test("the owner's restart closes the running session and starts a new one at once; the old process is gone", async () => {
    const { manager, call } = open({ fx: fixture() });
    const handle = manager.handle("fx");
    await handle.listTools();
    const pid = handle.pid!;
    await handle.restart();
    expect(handle.state).toBe("ready");
    expect(handle.restarts).toBe(1);
    expect(handle.pid).not.toBe(pid);
    await waitFor(() => !alive(pid), "the old server's exit");
    expect((await call("mcp__fx__echo", { text: "after the restart" })).output).toBe("after the restart");
    // the old session's end was not a crash: nothing else restarts it
    expect(handle.restarts).toBe(1);
  });

  test("a server that failed to start is tried again by the owner's restart at once, not after its backoff", async () => {
    const { manager } = open({ fx: { command: "prx-no-such-mcp-server" } });
    const handle = manager.handle("fx");
    await handle.connect().catch(() => undefined);
    expect(handle.state).toBe("failed");
    const waiting = await handle.connect().catch((e: Error) => e.message);
    expect(waiting).toContain("prx tries again in");
    const again = await handle.restart().catch((e: Error) => e.message);
    expect(again).toBe('MCP server "fx": command "prx-no-such-mcp-server" is not on PATH');
  });

  test("a disabled server is not restarted", async () => {
    const { manager } = open({ fx: fixture([], { enabled: false }) });
    const refused = await manager.handle("fx").restart().catch((e: unknown) => e);
    expect(isPrxError(refused, "MCP_UNAVAILABLE")).toBe(true);
    expect((refused as Error).message).toContain("disabled");
  });

  test("notifications/tools/list_changed updates the offered tools without a restart", async () => {
    const { manager, registry, call } = open({ fx: fixture() });
    await manager.handle("fx").listTools();
    const pid = manager.handle("fx").pid;
    const before = registry.specs();
    expect((await call("mcp__fx__add_tool", { name: "fresh" })).output).toBe("added");
    await waitFor(() => registry.names().includes("mcp__fx__fresh"), "the changed tool list");
    expect(registry.specs()).not.toBe(before);
    expect(manager.handle("fx").pid).toBe(pid);
    expect((await call("mcp__fx__fresh")).output).toBe("ran fresh");
  });

  test("stderr lines go to prx's log under the server's name", async () => {
    await captureLog(async (lines) => {
      const { manager } = open({ chatty: fixture(["--stderr-lines", "2"]) });
      await manager.handle("chatty").listTools();
      await waitFor(() => lines.some((l) => l.includes("fixture stderr line 2")), "the stderr lines");
      expect(lines.find((l) => l.includes("fixture stderr line 1"))).toContain("INFO  [mcp.chatty] fixture stderr line 1");
    });
  });
});

describe("stderr", () => {
  test(`a stderr line of ${MCP_STDERR_LINE_MAX_BYTES} bytes is logged whole; a longer one is left out with a note`, async () => {
    await captureLog(async (lines) => {
      const { manager } = open({
        fits: fixture(["--stderr-line-bytes", String(MCP_STDERR_LINE_MAX_BYTES)]),
        over: fixture(["--stderr-line-bytes", String(MCP_STDERR_LINE_MAX_BYTES + 1)]),
      });
      await Promise.all([manager.handle("fits").listTools(), manager.handle("over").listTools()]);
      await waitFor(() => lines.some((l) => l.includes("[mcp.over] <a stderr line")), "the note about the long line");
      expect(lines.find((l) => l.includes("[mcp.fits] e"))).toEndWith(`[mcp.fits] ${"e".repeat(MCP_STDERR_LINE_MAX_BYTES)}`);
      expect(lines.find((l) => l.includes("[mcp.over]") && l.includes("stderr line"))).toEndWith(
        `[mcp.over] <a stderr line of ${MCP_STDERR_LINE_MAX_BYTES + 1} bytes, over ${MCP_STDERR_LINE_MAX_BYTES}, left out>`,
      );
    });
  });

  test(`a server that fails to start is quoted with its last ${MCP_STDERR_TAIL_LINES} stderr lines`, async () => {
    // the fixture prints N numbered lines, then one more saying why it cannot start
    const failure = async (lines: number) => {
      const { manager } = open({ fx: fixture(["--stderr-lines", String(lines), "--crash-on-start"]) });
      return manager.handle("fx").listTools().then(() => "", (e: Error) => e.message);
    };
    const quoted = (message: string) => message.slice(message.indexOf("its last stderr lines: ") + 23).split(" | ");
    const atLimit = quoted(await failure(MCP_STDERR_TAIL_LINES - 1));
    expect(atLimit).toHaveLength(MCP_STDERR_TAIL_LINES);
    expect(atLimit[0]).toBe("fixture stderr line 1");
    const past = quoted(await failure(MCP_STDERR_TAIL_LINES));
    expect(past).toHaveLength(MCP_STDERR_TAIL_LINES);
    expect(past[0]).toBe("fixture stderr line 2");
    expect(past.at(-1)).toBe("fixture: cannot start, missing FIXTURE_TOKEN");
  });
});

describe("closing", () => {
  test("closing reaps the server and everything it started in its process group", async () => {
    const { manager, call } = open({ fx: fixture() });
    const handle = manager.handle("fx");
    await handle.listTools();
    const child = Number((await call("mcp__fx__spawn_child")).output);
    const pid = handle.pid!;
    expect(child).toBeGreaterThan(1);
    expect(alive(child)).toBe(true);
    await manager.close();
    expect(alive(pid)).toBe(false);
    await waitFor(() => !alive(child), "the server's child to be gone");
    expect(handle.state).toBe("closed");
  });

  test(`a server ignoring stdin's end and SIGTERM is killed ${MCP_KILL_GRACE_MS} ms after each`, async () => {
    const { manager } = open({ stubborn: fixture(["--ignore-sigterm", "--ignore-eof"]) });
    await manager.handle("stubborn").listTools();
    const pid = manager.handle("stubborn").pid!;
    await manager.close();
    expect(alive(pid)).toBe(false);
  });

  test("closing while a server is still starting stops it at once instead of waiting for its handshake", async () => {
    const workspace = spaces.make();
    const file = join(workspace.root, "starts");
    const slow = fixture(["--initialize-delay", "600000", "--starts-file", file], { startup_timeout_ms: 600_000 });
    const { manager, registry } = open({ slow }, workspace);
    registry.specs(); // starts the background discovery
    await waitFor(() => starts(file) === 1, "the server process to start");
    const pid = Number(readFileSync(file, "utf8").trim());
    expect(manager.handle("slow").state).toBe("starting");
    await manager.close();
    expect(alive(pid)).toBe(false);
    expect(manager.handle("slow").state).toBe("closed");
  });

  test("a call after close fails naming the server", async () => {
    const { manager } = open({ fx: fixture() });
    await manager.close();
    let error: unknown;
    await manager.handle("fx").call("echo", {}).catch((e: unknown) => (error = e));
    expect((error as Error).message).toBe('MCP server "fx" is not available: prx is shutting down');
  });
});
