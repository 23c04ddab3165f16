/** End-to-end tests of the compiled binary: init, doctor, agent -m, interactive agent, chat through piped stdin. */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

let fake: FakeServer;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  await ensureBinary();
  fake = await startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  await fake.stop();
  for (const c of cleanups) c();
});

function workspace(config?: string): string {
  const ws = tempWorkspace(config);
  cleanups.push(ws.cleanup);
  return ws.dir;
}

describe("prx binary", () => {
  test("--version and --help", async () => {
    const version = await runPrx(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^prx \d+\.\d+\.\d+\n$/);
    const help = await runPrx(["--help"]);
    expect(help.stdout).toContain("prx <command>");
  });

  test("unknown command and flag: one line, closest name, exit 2", async () => {
    const cmd = await runPrx(["chta"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr.trim().split("\n")).toHaveLength(1);
    expect(cmd.stderr).toContain("did you mean 'chat'");
    const flag = await runPrx(["agent", "--sesion", "x"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("did you mean '--session'");
  });

  test("init writes a commented config that validates", async () => {
    const dir = workspace();
    const init = await runPrx(["init", "--workspace", dir]);
    expect(init.code).toBe(0);
    const text = readFileSync(join(dir, "config.toml"), "utf8");
    expect(text).toContain("# prx configuration");
    const validate = await runPrx(["config", "validate", "--workspace", dir]);
    expect(validate.code).toBe(0);
    const again = await runPrx(["init", "--workspace", dir]);
    expect(again.stdout).toContain("already exists");
  });

  test("config validate names the bad key and line", async () => {
    const dir = workspace(`[agent]\ntemprature = 1\n`);
    const result = await runPrx(["config", "validate", "--workspace", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('config.toml:2: unknown key "agent.temprature"');
  });

  test("config schema prints JSON Schema", async () => {
    const result = await runPrx(["config", "schema"]);
    const schema = JSON.parse(result.stdout);
    expect(schema.properties.default_provider).toBeDefined();
    expect(schema.additionalProperties).toBe(false);
  });

  test("agent -m against the fake provider, text and --json", async () => {
    const dir = workspace(fakeProviderConfig(fake.url));
    const text = await runPrx(["agent", "--workspace", dir, "-m", "hello binary"]);
    expect(text.code).toBe(0);
    expect(text.stdout.trim()).toBe("echo: hello binary");
    const json = await runPrx(["agent", "--workspace", dir, "--json", "--session", "abc", "-m", "again"]);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({ sessionId: "abc", text: "echo: again", provider: "fake" });
    expect(existsSync(join(dir, "data", "prx.db"))).toBe(true);
  });

  test("agent -m with an unreachable provider fails clearly and exits 1", async () => {
    const dir = workspace(fakeProviderConfig("http://127.0.0.1:9/v1", "[reliability]\nretries = 0\n"));
    const result = await runPrx(["agent", "--workspace", dir, "-m", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/fake/);
  });

  test("interactive agent reads one turn per line", async () => {
    const dir = workspace(fakeProviderConfig(fake.url));
    const result = await runPrx(["agent", "--workspace", dir], { stdin: "one\ntwo\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("echo: one");
    expect(result.stdout).toContain("echo: two");
  });

  test("chat through piped stdin: plain output, commands, tools shown", async () => {
    const dir = workspace();
    const input = ["remember that the door code is 4321", "/sessions", "what do you remember about the door code", "/new", "/bogus", "/exit"].join("\n") + "\n";
    const result = await runPrx(["chat", "--workspace", dir], { stdin: input });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("\x1b[");
    expect(result.stdout).toContain("→ memory_store");
    expect(result.stdout).toContain("→ memory_recall");
    expect(result.stdout).toContain("4321");
    expect(result.stdout).toContain("new session");
    expect(result.stdout).toContain("unknown command /bogus");
  });

  test("chat --continue resumes the last chat session", async () => {
    const dir = workspace(fakeProviderConfig(fake.url));
    await runPrx(["chat", "--workspace", dir], { stdin: "first message\n" });
    const second = await runPrx(["chat", "--workspace", dir, "--continue"], { stdin: "second\n" });
    expect(second.code).toBe(0);
    // where the user left off is shown before the first prompt
    expect(second.stdout).toContain("where you left off:\nyou> first message\nprx> echo: first message\n");
    const lastRequest = fake.chatRequests().at(-1)!.body;
    expect(lastRequest.messages.map((m: { content: string }) => m.content)).toContain("first message");
  });

  test("doctor: ok with a reachable provider, non-zero with an unreachable one", async () => {
    const good = workspace(fakeProviderConfig(fake.url));
    const ok = await runPrx(["doctor", "--workspace", good]);
    expect(ok.stdout).toContain("OK   provider fake");
    expect(ok.code).toBe(0);
    const bad = workspace(fakeProviderConfig("http://127.0.0.1:9/v1"));
    const fail = await runPrx(["doctor", "--workspace", bad]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toContain("FAIL provider fake");
  });
});

describe("prx chat interrupts", () => {
  test("Ctrl-C cancels the running turn, the chat goes on, and a second Ctrl-C while idle exits", async () => {
    const dir = workspace(fakeProviderConfig(fake.url));
    fake.enqueue({ type: "hang" });
    const proc = Bun.spawn([BINARY, "chat", "--workspace", dir], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin", HOME: dir },
    });
    const before = fake.chatRequests().length;
    proc.stdin.write("please hang\n");
    proc.stdin.flush();
    while (fake.chatRequests().length === before) await Bun.sleep(10);
    proc.kill("SIGINT");
    await Bun.sleep(200);
    proc.stdin.write("second message\n");
    proc.stdin.flush();
    while (fake.chatRequests().length < before + 2) await Bun.sleep(10);
    await Bun.sleep(200);
    proc.kill("SIGINT");
    const code = await proc.exited;
    const stdout = await new Response(proc.stdout).text();
    expect(stdout).toContain("cancelled");
    expect(stdout).toContain("echo: second message");
    expect(code).toBe(0);
  });
});
