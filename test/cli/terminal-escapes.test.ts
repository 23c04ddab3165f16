/**
 * Stored text through the built binary: a message or memory holding terminal control sequences is printed with
 * every control character visible, never raw; a memory key holding NUL is refused at every door.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, tempWorkspace } from "../helpers/binary.ts";

/** Sets the window title to "pwned", then clears the screen; plus a C1 CSI and a right-to-left override. */
const HOSTILE = "hi \x1b]0;pwned\x07\x1b[2J \x9b31m \u202Eevil";
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

let fake: FakeServer;
let workspace: ReturnType<typeof tempWorkspace>;
const prx = (...args: string[]) => runPrx([...args, "--workspace", workspace.dir], { env: { HOME: workspace.dir, PRX_LOG: "warn" } });

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
  workspace = tempWorkspace(fakeProviderConfig(fake.url));
}, 300_000);
afterAll(async () => {
  await fake.stop();
  workspace.cleanup();
});

describe("stored text on the terminal", () => {
  test("prx sessions list|show print a turn's control characters visibly (text and --json)", async () => {
    const turn = await prx("agent", "-m", HOSTILE, "--session", "hostile");
    expect(turn.code).toBe(0);
    expect(turn.stdout).not.toMatch(RAW_CONTROL);
    expect(turn.stdout).toContain("^[]0;pwned^G^[[2J");

    const shown = await prx("sessions", "show", "hostile");
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
    expect(shown.stdout).toContain("hi ^[]0;pwned^G^[[2J <U+009B>31m <U+202E>evil");
    expect(shown.stdout).toContain("echo: hi ^[]0;pwned^G^[[2J");

    const listed = await prx("sessions", "list");
    expect(listed.stdout).not.toMatch(RAW_CONTROL);

    const json = await prx("sessions", "show", "hostile", "--json");
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    const parsed = JSON.parse(json.stdout) as { messages: Array<{ content: string }> };
    expect(parsed.messages[0]!.content).toBe(HOSTILE);
  }, 60_000);

  test("prx memory list|show|search print stored control characters visibly", async () => {
    expect((await prx("memory", "store", "title\x1b]0;x\x07", HOSTILE)).code).toBe(0);
    for (const args of [["list"], ["show", "title\x1b]0;x\x07"], ["search", "evil"], ["list", "--json"]]) {
      const result = await prx("memory", ...args);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(RAW_CONTROL);
    }
    const shown = await prx("memory", "show", "title\x1b]0;x\x07");
    expect(shown.stdout).toContain("key:      title^[]0;x^G");
    expect(shown.stdout).toContain("hi ^[]0;pwned^G^[[2J <U+009B>31m <U+202E>evil");
    const listed = JSON.parse((await prx("memory", "list", "--json")).stdout) as { entries: Array<{ content: string }> };
    expect(listed.entries[0]!.content).toBe(HOSTILE);
  }, 60_000);

  test("a memory key with NUL is refused by prx memory import, naming the key and the rule", async () => {
    // argv cannot carry a NUL (the kernel ends the argument there): a file or stdin can
    const line = JSON.stringify({ key: "nul\0key", content: "x" }) + "\n";
    const imported = await runPrx(["memory", "import", "-", "--workspace", workspace.dir], {
      stdin: line,
      env: { HOME: workspace.dir, PRX_LOG: "warn" },
    });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain("a memory key may not contain the NUL character (U+0000)");
    expect(imported.stderr).not.toContain("\0");
  }, 60_000);
});
