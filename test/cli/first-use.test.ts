/**
 * The first minutes with the compiled binary: global options anywhere, session ids checked at start, no empty
 * sessions from turns that could not start, `init --force` keeping a backup, and an offline reply that fits.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_TEMPLATE } from "../../src/config/template.ts";
import { fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { binarySuite } from "../helpers/binary-suite.ts";

const suite = binarySuite();
const workspace = (config?: string) => suite.workspace(config);

/** Sessions in the workspace database (none when the table was never made). */
function sessionCount(dir: string): number {
  const path = join(dir, "data", "prx.db");
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true });
  try {
    const table = db.query("SELECT name FROM sqlite_master WHERE name = 'sessions'").get();
    return table ? db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()!.n : 0;
  } finally {
    db.close();
  }
}

describe("global options", () => {
  test("before the command, in either spelling, and between gateway and token", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    for (const args of [
      ["--workspace", dir, "doctor"],
      ["-w", dir, "doctor"],
      [`--workspace=${dir}`, "doctor"],
      ["doctor", "-w", dir],
    ]) {
      const result = await runPrx(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`OK   workspace: ${dir}`);
    }
    const tokens = await runPrx(["-w", dir, "gateway", "token", "list"]);
    expect(tokens.stdout).toContain("no gateway tokens");
    expect((await runPrx(["gateway", "-w", dir, "token", "list"])).stdout).toContain("no gateway tokens");
  });

  test("a missing value or a missing command says so (exit 2)", async () => {
    for (const [args, said] of [
      [["--workspace"], "prx: --workspace needs a value: --workspace DIR"],
      [["-w"], "prx: -w needs a value: -w DIR"],
      [["doctor", "--workspace"], "prx doctor: --workspace needs a value"],
      [["-w", "/tmp"], "prx: a command is missing after -w /tmp"],
    ] as const) {
      const result = await runPrx([...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(said);
    }
  });
});

describe("sessions", () => {
  test("a bad --session id is refused at start with the API's rule (exit 2)", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    for (const command of ["chat", "agent"]) {
      const result = await runPrx([command, "--workspace", dir, "--session", "bad id!"], { stdin: "hello\n" });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`prx ${command}: invalid --session "bad id!": use 1-128 characters`);
    }
    expect(sessionCount(dir)).toBe(0);
  });

  test("turns that cannot start leave no session behind; a recorded turn creates its session", async () => {
    const dir = workspace(fakeProviderConfig(suite.fake.url));
    expect((await runPrx(["agent", "--workspace", dir, "--provider", "nope", "-m", "hi"])).code).toBe(1);
    expect((await runPrx(["agent", "--workspace", dir, "--model", "hint:nope", "-m", "hi"])).code).toBe(1);
    const chat = await runPrx(["chat", "--workspace", dir, "--provider", "nope"], { stdin: "hi\n" });
    expect(chat.code).not.toBe(0);
    expect(sessionCount(dir)).toBe(0);
    expect((await runPrx(["agent", "--workspace", dir, "-m", "hi"])).code).toBe(0);
    expect(sessionCount(dir)).toBe(1);
  });
});

describe("init and the offline provider", () => {
  test("init --force keeps the hand-edited config as config.toml.bak and says so", async () => {
    const edited = '# mine\ndefault_provider = "offline"\n[agent]\ntemperature = 0.2\n';
    const dir = workspace(edited);
    const result = await runPrx(["init", "--workspace", dir, "--force"]);
    expect(result.code).toBe(0);
    const backup = join(dir, "config.toml.bak");
    expect(result.stdout).toContain(`kept the previous config as ${backup}`);
    expect(readFileSync(backup, "utf8")).toBe(edited);
    expect(readFileSync(join(dir, "config.toml"), "utf8")).toBe(CONFIG_TEMPLATE);
    const again = await runPrx(["init", "--workspace", dir]);
    expect(again.stdout).toContain("--force replaces it and keeps the old one as config.toml.bak");
  });

  test("after init the offline reply names the config file instead of asking for `prx init`", async () => {
    const dir = workspace();
    const fresh = await runPrx(["agent", "--workspace", dir, "-m", "hi"]);
    expect(fresh.stdout).toContain("run `prx init`");
    await runPrx(["init", "--workspace", dir]);
    const reply = await runPrx(["agent", "--workspace", dir, "--session", "after-init", "-m", "hi"]);
    expect(reply.code).toBe(0);
    expect(reply.stdout).not.toContain("prx init");
    expect(reply.stdout).toContain(`add a provider to ${join(dir, "config.toml")}`);
  });

  test("as the fallback of a failing provider the offline reply says which failed, why and how to fix it", async () => {
    const dir = workspace(
      fakeProviderConfig(suite.fake.url, 'api_key_env = "PRX_E2E_UNSET_KEY"\n[reliability]\nretries = 0\nfallback_providers = ["offline"]\n'),
    );
    const reply = await runPrx(["agent", "--workspace", dir, "-m", "hi"]);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toContain('provider "fake" failed: fake: environment variable PRX_E2E_UNSET_KEY is not set');
    expect(reply.stdout).toContain("fix: export PRX_E2E_UNSET_KEY=<your key>");
    expect(reply.stdout).not.toContain("prx init");
  });
});
