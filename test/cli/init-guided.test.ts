/**
 * `prx init` through the built binary: on a terminal it asks for a provider, model and key, tests the provider with
 * one real call (the fake refuses any other key), offers a Telegram bot, and writes config.toml and secrets.env (0600)
 * that later commands read; without a terminal it never asks.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { BINARY, ensureBinary, runPrx } from "../helpers/binary.ts";
import { spawnPty } from "../helpers/pty.ts";

setDefaultTimeout(60_000);
const KEY = "sk-init-test";
let fake: FakeServer;
const dirs: string[] = [];
beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI({ apiKey: KEY });
}, 300_000);
afterAll(async () => {
  await fake.stop();
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "prx-init-"));
  dirs.push(dir);
  return dir;
}

const env = (home: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERM: "xterm-256color" });

test("on a terminal: asked, tested with one real call, written; later commands read the stored key", async () => {
  const dir = scratch();
  const init = spawnPty([BINARY, "init", "-w", dir], env(dir));
  try {
    const answer = async (prompt: string | RegExp, keys: string) => {
      await init.waitFor(prompt);
      init.type(`${keys}\r`);
    };
    await answer("provider [1]: ", "10");
    await answer("its base URL", fake.url);
    await answer("a name for it in config.toml", "mine");
    await answer("model", "fake-model");
    await answer("does it need an API key", "y");
    await answer("the environment variable that holds its key", "PRX_TEST_INIT_KEY");
    await answer("paste the key", KEY);
    await init.waitFor("it answered");
    await answer("add a Telegram bot", "y");
    await answer("bot token", "123456789:AAtest");
    expect(await init.exited).toBe(0);
  } finally {
    init.kill();
  }
  expect(init.output()).toContain("kept PRX_TEST_INIT_KEY, TELEGRAM_BOT_TOKEN in");
  const config = parse(readFileSync(join(dir, "config.toml"), "utf8")) as Record<string, any>;
  expect(config).toMatchObject({
    default_provider: "mine",
    default_model: "fake-model",
    providers: { mine: { kind: "openai-compatible", base_url: fake.url, api_key_env: "PRX_TEST_INIT_KEY", models: ["fake-model"] } },
    channels: { telegram: { enabled: true, token_env: "TELEGRAM_BOT_TOKEN" } },
  });
  expect(readFileSync(join(dir, "config.toml"), "utf8")).not.toContain(KEY);
  const secrets = join(dir, "secrets.env");
  expect(statSync(secrets).mode & 0o777).toBe(0o600);
  expect(readFileSync(secrets, "utf8")).toContain(`PRX_TEST_INIT_KEY="${KEY}"`);
  // the first call went out with the pasted key, and so does a later command's (the fake refuses any other)
  const reply = await runPrx(["agent", "-m", "hello after init", "-w", dir], { env: { HOME: dir } });
  expect(reply.stdout).toContain("echo: hello after init");
  chmodSync(secrets, 0o644);
  const refused = await runPrx(["agent", "-m", "again", "-w", dir], { env: { HOME: dir } });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("can be read by other users (mode 644)");
});

test("without a terminal nothing is asked: flags make the config, --test fails on a provider that refuses", async () => {
  const dir = scratch();
  const ok = await runPrx(["init", "--provider", "mine", "--base-url", fake.url, "--model", "fake-model", "--api-key-env", "PRX_TEST_INIT_KEY", "--test", "-w", dir], {
    env: { PRX_TEST_INIT_KEY: KEY },
  });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain("tested mine / fake-model");
  const other = scratch();
  const bad = await runPrx(["init", "--provider", "mine", "--base-url", fake.url, "--model", "fake-model", "--api-key-env", "PRX_TEST_INIT_KEY", "--test", "-w", other], {
    env: { PRX_TEST_INIT_KEY: "wrong" },
  });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("nothing was written");
  const plain = await runPrx(["init", "-w", other]);
  expect(plain.code).toBe(0);
  expect(parse(readFileSync(join(other, "config.toml"), "utf8"))).toMatchObject({ default_provider: "offline" });
});
