/** `prx channel list|status|pair` and the [channels.<name>] configuration, through the CLI run from source. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openSqliteStorage } from "../../src/storage/index.ts";

const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");
const dir = mkdtempSync(join(tmpdir(), "prx-channel-cli-"));

async function prx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, "-w", dir], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(() => {
  writeFileSync(join(dir, "config.toml"), `[channels.telegram]\nenabled = true\ntoken_env = "TG"\n[channels.support]\nkind = "webhook"\nsecret_env = "S"\ndm_policy = "open"\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("prx channel list shows each channel's kind (defaulting to its name), state and policies", async () => {
  const { code, stdout } = await prx(["channel", "list", "--json"]);
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual([
    { name: "telegram", kind: "telegram", enabled: true, dm_policy: "pairing", group_policy: "mention" },
    { name: "support", kind: "webhook", enabled: false, dm_policy: "open", group_policy: "mention" },
  ]);
});

test("an unknown key in [channels.<name>] is refused naming its path; a token in config.toml is not a key", async () => {
  writeFileSync(join(dir, "config.toml"), `[channels.telegram]\ntoken = "123:abc"\n`);
  const { code, stderr } = await prx(["channel", "list"]);
  expect(code).not.toBe(0);
  expect(stderr).toContain("channels.telegram.token");
  writeFileSync(join(dir, "config.toml"), `[channels.mybot]\nenabled = true\n`);
  const unnamed = await prx(["channel", "list"]);
  expect(unnamed.code).toBe(1);
  expect(unnamed.stderr).toContain('add kind = "telegram"');
  writeFileSync(join(dir, "config.toml"), `[channels.telegram]\nenabled = true\ntoken_env = "TG"\n`);
});

test("prx channel pair list|approve|revoke manage the pairings every channel process reads", async () => {
  const storage = openSqliteStorage(join(dir, "data", "prx.db"));
  const code = storage.pairings.request("telegram", "555", "Grace");
  await storage.close();
  const listed = await prx(["channel", "pair", "list"]);
  expect(listed.stdout).toContain(`telegram  555  pending  code ${code}  Grace`);
  const approved = await prx(["channel", "pair", "approve", code]);
  expect(approved.code).toBe(0);
  expect(approved.stdout).toContain("approved Grace (555) on channel telegram");
  expect((await prx(["channel", "pair", "approve", code])).code).toBe(1);
  const revoked = await prx(["channel", "pair", "revoke", "555", "--channel", "telegram"]);
  expect(revoked.stdout).toContain("revoked 555");
  expect((await prx(["channel", "pair", "revoke", "555"])).code).toBe(1);
});

test("prx channel run names the configured channels when the name is unknown; status before any run", async () => {
  const run = await prx(["channel", "run", "nope"]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('no channel "nope"');
  expect(run.stderr).toContain("configured channels: telegram");
  const status = await prx(["channel", "status"]);
  expect(status.stdout).toContain("no channel has run in this workspace yet");
  const typo = await prx(["channel", "stauts"]);
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("did you mean 'status'");
});
