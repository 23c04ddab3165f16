import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSecretsFile, parseSecrets, SECRETS_FILE_MAX_BYTES } from "../../src/config/secrets-file.ts";
import { isPrxError } from "../../src/core/errors.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function workspaceWith(text: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), "prx-secrets-"));
  dirs.push(dir);
  writeFileSync(join(dir, "secrets.env"), text);
  chmodSync(join(dir, "secrets.env"), mode);
  return join(dir, "config.toml");
}

test("NAME=value lines, export, comments and quotes; the environment wins over the file", () => {
  expect([...parseSecrets('# keys\nA=1\nexport B="two words"\nC=\'x=y\'\n\n', "f")]).toEqual([["A", "1"], ["B", "two words"], ["C", "x=y"]]);
  const env: Record<string, string | undefined> = { B: "from env" };
  expect(loadSecretsFile(workspaceWith('A=1\nB="file"\n'), env)).toEqual(["A"]);
  expect(env).toEqual({ A: "1", B: "from env" });
});

test("a bad line is refused naming file and line; a file others can read is refused", () => {
  let caught: unknown;
  try {
    loadSecretsFile(workspaceWith("A=1\nnot a line\n"), {});
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught, "CONFIG_INVALID")).toBe(true);
  expect((caught as Error).message).toContain("secrets.env:2: expected NAME=value");
  expect(() => loadSecretsFile(workspaceWith("A=1\n", 0o640), {})).toThrow("can be read by other users (mode 640)");
});

test(`a file of ${SECRETS_FILE_MAX_BYTES} bytes is read; one byte more is refused`, () => {
  const line = (bytes: number) => `A=${"x".repeat(bytes - 3)}\n`;
  const env: Record<string, string | undefined> = {};
  expect(loadSecretsFile(workspaceWith(line(SECRETS_FILE_MAX_BYTES)), env)).toEqual(["A"]);
  expect(() => loadSecretsFile(workspaceWith(line(SECRETS_FILE_MAX_BYTES + 1)), {})).toThrow(`larger than ${SECRETS_FILE_MAX_BYTES} bytes`);
});
