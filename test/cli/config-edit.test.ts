/**
 * `prx config get|set|unset` through the built binary: values in effect, edits that keep comments, and an edit that
 * would make the file invalid refused with the file untouched.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);
const cleanups: (() => void)[] = [];
beforeAll(() => ensureBinary(), 300_000);
afterAll(() => cleanups.forEach((cleanup) => cleanup()));

const FILE = `# mine
default_model = "fake-model"  # cheap

[gateway]
port = 16830
`;

function workspace(): string {
  const ws = tempWorkspace(FILE, { prefix: "prx-config-edit-" });
  cleanups.push(ws.cleanup);
  return ws.dir;
}

test("get reads the value in effect: the file's, else the default; objects as JSON", async () => {
  const dir = workspace();
  expect((await runPrx(["config", "get", "gateway.port", "-w", dir])).stdout).toBe("16830\n");
  expect((await runPrx(["config", "get", "gateway.host", "-w", dir])).stdout).toBe("127.0.0.1\n");
  expect(JSON.parse((await runPrx(["config", "get", "autonomy", "-w", dir])).stdout)).toMatchObject({ level: "supervised" });
  const missing = await runPrx(["config", "get", "gateway.nope", "-w", dir]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("gateway.nope is not set, or is not a config key");
});

test("set and unset edit one key, keeping comments; the file stays 0600", async () => {
  const dir = workspace();
  const path = join(dir, "config.toml");
  const set = await runPrx(["config", "set", "default_model", "gpt-4o", "-w", dir]);
  expect(set.code).toBe(0);
  expect(set.stdout).toContain('set default_model = "gpt-4o"');
  expect(readFileSync(path, "utf8")).toBe(FILE.replace('"fake-model"  # cheap', '"gpt-4o" # cheap'));
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect((await runPrx(["config", "set", "autonomy.level", "full", "-w", dir])).code).toBe(0);
  expect((await runPrx(["config", "get", "autonomy.level", "-w", dir])).stdout).toBe("full\n");
  expect((await runPrx(["config", "unset", "gateway.port", "-w", dir])).code).toBe(0);
  expect((await runPrx(["config", "get", "gateway.port", "-w", dir])).stdout).toBe("16830\n");
  expect(readFileSync(path, "utf8")).not.toContain("port =");
});

test("an edit that makes the config invalid is refused naming why; the file is untouched", async () => {
  const dir = workspace();
  const path = join(dir, "config.toml");
  const before = readFileSync(path, "utf8");
  const bad = await runPrx(["config", "set", "gateway.port", "99999", "-w", dir]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("gateway.port");
  const unknown = await runPrx(["config", "set", "gateway.prot", "1", "-w", dir]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("prot");
  expect(readFileSync(path, "utf8")).toBe(before);
});
