/**
 * The chat on a real terminal (a pseudo-terminal through util-linux `script`), run as the compiled binary: the
 * "thinking" line while a turn waits, Ctrl-C clearing a half-typed line, NO_COLOR, and doctor's coloured labels.
 */
import { describe, expect, test } from "bun:test";
import { BINARY, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";
import { spawnPty } from "../helpers/pty.ts";
import { ERASE_LINE, SPINNER_LABEL } from "../../src/chat/spinner.ts";

const suite = binarySuite();
const workspace = (config?: string) => suite.workspace(config);

const env = (dir: string, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir,
  TERM: "xterm-256color",
  ...extra,
});

describe("prx chat on a terminal", () => {
  test("a thinking line shows while the turn waits and is erased by the first token", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    const chat = spawnPty([BINARY, "chat", "--workspace", dir], env(dir));
    try {
      await chat.waitFor("you> ");
      chat.type("hello terminal\r");
      await chat.waitFor("echo: hello terminal");
      const shown = chat.output();
      const thinking = shown.indexOf(SPINNER_LABEL);
      expect(thinking).toBeGreaterThan(shown.indexOf("hello terminal"));
      // Erased in place, right before the answer: nothing of it is left on the answer's line.
      expect(shown.indexOf(`${ERASE_LINE}echo: hello terminal`)).toBeGreaterThan(thinking);
      chat.type("\x03");
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }
  });

  test("a tool call that needs approval asks inline: y runs it, n refuses it, and the answers are not messages", async () => {
    const shell = `[tools]\nshell_enabled = true\nshell_allowlist = ["echo"]\n`;
    const dir = workspace(fakeProviderConfig(suite.fake.url, shell, null));
    const chat = spawnPty([BINARY, "chat", "--workspace", dir, "--session", "inline"], env(dir));
    try {
      await chat.waitFor("you> ");
      const before = suite.fake.chatRequests().length;
      chat.type('use tool shell {"command":["echo","inline-yes"]}\r');
      await chat.waitFor("[y]es once, [a]lways this session, [n]o");
      chat.type("y\r");
      await chat.waitFor("tool said: exit code: 0");
      chat.type('use tool shell {"command":["echo","inline-no"]}\r');
      await chat.waitFor(/\[n\]o: [\s\S]*\[n\]o: /);
      const asked = chat.output().lastIndexOf("[n]o: ");
      chat.type("n\r");
      // the model's answer over the refusal ends the turn (Ctrl-C during a turn would cancel it instead of exiting)
      await chat.waitFor("tool said: error: tool shell was not run: the owner denied it");
      expect(chat.output().indexOf("the owner denied it")).toBeGreaterThan(asked);
      // two turns, two model calls each (the call, then the answer over its result): "y" and "n" were not messages
      expect(suite.fake.chatRequests().length - before).toBe(4);
      chat.type("\x03");
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }
    const audit = await runPrx(["audit", "--json", "-w", dir], { env: { HOME: dir } });
    const rows = JSON.parse(audit.stdout) as Array<{ decision: string; decided_by: string; outcome: string }>;
    expect(rows.map((r) => [r.decision, r.decided_by, r.outcome])).toEqual([
      ["deny", "chat", "not_run"],
      ["allow", "chat", "ok"],
    ]);
  }, 60_000);

  test("Ctrl-C with a half-typed line clears it and the chat goes on; Ctrl-C on an empty line exits", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    const chat = spawnPty([BINARY, "chat", "--workspace", dir], env(dir));
    try {
      await chat.waitFor("you> ");
      chat.type("half typed");
      await chat.waitFor("half typed");
      const before = suite.fake.chatRequests().length;
      chat.type("\x03");
      chat.type("/model\r");
      // Had the line survived, "half typed/model" would have gone to the model as a message.
      await chat.waitFor("model: fake-model (provider fake)");
      expect(suite.fake.chatRequests().length).toBe(before);
      chat.type("\x03");
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }
  });

  test("Ctrl-D at the prompt ends the chat on a line of its own", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    const chat = spawnPty([BINARY, "chat", "--workspace", dir], env(dir));
    try {
      await chat.waitFor("you> ");
      chat.type("\x04");
      expect(await chat.exited).toBe(0);
      expect(chat.output()).toMatch(/you> (\x1b\[\d+G)?\r?\n/);
    } finally {
      chat.kill();
    }
  });

  test("colours on a terminal, none with NO_COLOR; the error stays a message", async () => {
    for (const noColor of [false, true]) {
      const dir = workspace(fakeProviderConfig(suite.fake.url));
      const chat = spawnPty([BINARY, "chat", "--workspace", dir], env(dir, noColor ? { NO_COLOR: "1" } : {}));
      try {
        await chat.waitFor("you> ");
        chat.type("/model hint:nope\r");
        await chat.waitFor('no [[model_routes]] entry with hint "nope"');
        chat.type("/bogus\r");
        await chat.waitFor("unknown command /bogus");
        if (noColor) expect(chat.output()).not.toMatch(/\x1b\[(2|3\d)m/);
        else expect(chat.output()).toContain("\x1b[31merror: unknown command /bogus");
        chat.type("\x03");
        expect(await chat.exited).toBe(0);
      } finally {
        chat.kill();
      }
    }
  });
});

describe("plain output and doctor", () => {
  test("piped chat never shows the thinking line, and a failed command does not end it", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    const result = await runPrx(["chat", "--workspace", dir], { stdin: "/model hint:nope\nstill here\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('error: requested model "hint:nope": no [[model_routes]] entry');
    expect(result.stdout).toContain("echo: still here");
    expect(result.stdout).not.toContain(SPINNER_LABEL);
    expect(result.stdout).not.toContain("\x1b[");
  });

  test("/model names what prx knows of a model, and refuses one the provider does not list", async () => {
    const dir = workspace(`${fakeProviderConfig(suite.fake.url)}models = ["fake-model", "gpt-4o-mini"]\n`);
    const result = await runPrx(["chat", "--workspace", dir], { stdin: "/model gpt-4o-mini\n/model nope\n/model fake-model\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("model: gpt-4o-mini (provider fake), 128,000-token window");
    expect(result.stdout).toContain(`error: model "nope" is not one of provider fake's models: fake-model, gpt-4o-mini`);
    expect(result.stdout).toContain(
      'model: fake-model (provider fake); prx knows nothing of this model: a 32,768-token window is assumed (set [providers.fake.model_info."fake-model"])',
    );
  });

  test("doctor colours OK and FAIL on a terminal, not with NO_COLOR nor when piped", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    const colored = spawnPty([BINARY, "doctor", "--workspace", dir], env(dir));
    expect(await colored.exited).toBe(0);
    expect(colored.output()).toContain("\x1b[32mOK  \x1b[0m provider fake: reachable");
    const plain = spawnPty([BINARY, "doctor", "--workspace", dir], env(dir, { NO_COLOR: "1" }));
    expect(await plain.exited).toBe(0);
    expect(plain.output()).toContain("OK   provider fake: reachable");
    expect(plain.output()).not.toContain("\x1b[32m");
    const bad = workspace(fakeProviderConfig("http://127.0.0.1:9/v1"));
    const failing = spawnPty([BINARY, "doctor", "--workspace", bad], env(bad));
    expect(await failing.exited).toBe(1);
    expect(failing.output()).toContain("\x1b[31mFAIL\x1b[0m provider fake");
    const piped = await runPrx(["doctor", "--workspace", dir]);
    expect(piped.stdout).toContain("OK   provider fake");
    expect(piped.stdout).not.toContain("\x1b[");
  });
});
