/**
 * `prx agent` and `prx chat` fill the inbound envelope's user_id (`--user`, else the OS user), seen by a real
 * middleware: "gate" (test/fixtures/gate-middleware.ts) blocks with a greeting naming the user_id it received.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { USER_ID_MAX_BYTES } from "../../src/cli/user.ts";
import { pdk, writeGatePlugin, type GateRule } from "../fixtures/gate-middleware.ts";

const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");
const LONGEST = "u".repeat(USER_ID_MAX_BYTES);
const OS_USER = userInfo().username;

const greet = (id: string | null): GateRule => ({
  stage: "inbound",
  when: `"user_id":${JSON.stringify(id)}`,
  reply: { ok: pdk.block(`hello ${id === LONGEST ? "longest" : id}`) },
});

let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "prx-cli-user-"));
  await writeGatePlugin(join(root, "plugins"), { name: "gate", rules: [greet("alice"), greet(OS_USER), greet(LONGEST), greet(null)] });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function prx(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args, "--workspace", root], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, PRX_LOG: "warn" },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("--user fills the inbound user_id", () => {
  test("prx agent -m with --user, and without it (the OS user)", async () => {
    const alice = await prx(["agent", "-m", "hi", "--user", "alice"]);
    expect(alice.stdout).toContain("hello alice");
    expect(alice.code).toBe(0);
    const os = await prx(["agent", "-m", "hi"]);
    expect(os.stdout).toContain(`hello ${OS_USER}`);
  });

  test("prx agent --json reports the block", async () => {
    const run = await prx(["agent", "-m", "hi", "--json", "--user", "alice"]);
    const result = JSON.parse(run.stdout.trim());
    expect(result.text).toBe("hello alice");
    expect(result.blocked).toEqual({ plugin: "gate", capability: "gate", stage: "inbound", reason: "hello alice" });
  });

  test("prx chat with --user, and without it (the OS user)", async () => {
    const alice = await prx(["chat", "--user", "alice"], "hi\n/exit\n");
    expect(alice.stdout).toContain("hello alice");
    expect(alice.code).toBe(0);
    const os = await prx(["chat"], "hi\n/exit\n");
    expect(os.stdout).toContain(`hello ${OS_USER}`);
  });

  test(`an id of USER_ID_MAX_BYTES (${USER_ID_MAX_BYTES}) is accepted; one byte more is a usage error`, async () => {
    const longest = await prx(["agent", "-m", "hi", "--user", LONGEST]);
    expect(longest.stdout).toContain("hello longest");
    for (const command of ["agent", "chat"]) {
      const past = await prx([command, "--user", `${LONGEST}u`]);
      expect(past.code).toBe(2);
      expect(past.stderr).toContain(`prx ${command}: --user is ${USER_ID_MAX_BYTES + 1} bytes, more than ${USER_ID_MAX_BYTES}`);
    }
  });

  test("an empty id or one with a control character is a usage error", async () => {
    const empty = await prx(["agent", "-m", "hi", "--user", ""]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--user is empty");
    const control = await prx(["chat", "--user", "al\nice"]);
    expect(control.code).toBe(2);
    expect(control.stderr).toContain("--user contains a control character");
  });

  test("--help of both commands documents --user", async () => {
    for (const command of ["agent", "chat"]) {
      const help = await prx([command, "--help"]);
      expect(help.stdout).toContain("--user ID");
      expect(help.stdout).toContain(`1-${USER_ID_MAX_BYTES} bytes`);
    }
    expect((await prx(["--help"])).stdout).toContain("[--user ID]");
  });
});
