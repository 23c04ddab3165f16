import { describe, expect, test } from "bun:test";
import { COMMANDS } from "../../src/cli/main.ts";
import { COMPLETED_SUBCOMMANDS } from "../../src/cli/completions.ts";
import { runPrx } from "../helpers/binary.ts";

const ENTRY = ["bun", "src/cli/main.ts"];

async function script(shell: string): Promise<string> {
  const proc = Bun.spawn([...ENTRY, "completions", shell], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  return out;
}

/** What bash completes for the words typed so far (the last one being completed). */
async function bashCompletes(words: string[]): Promise<string[]> {
  const source = await script("bash");
  const program = `${source}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _prx; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const proc = Bun.spawn(["bash", "-c", program], { stdout: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return out.split("\n").filter(Boolean);
}

describe("prx completions", () => {
  test("every command prx has is completed, with its subcommands", () => {
    for (const command of COMMANDS) expect(COMPLETED_SUBCOMMANDS[command]).toBeDefined();
  });

  test("bash completes commands, subcommands and options", async () => {
    expect(await bashCompletes(["prx", "pl"])).toEqual(["plugins"]);
    expect(await bashCompletes(["prx", "config", "s"])).toEqual(["show", "schema", "set"]);
    expect(await bashCompletes(["prx", "status", "--j"])).toEqual(["--json"]);
  });

  test("zsh and fish scripts name every command; a missing or unknown shell is a usage error", async () => {
    for (const shell of ["zsh", "fish"]) {
      const text = await script(shell);
      for (const command of COMMANDS) expect(text).toContain(command);
    }
    const missing = await runPrx(["completions", "tcsh"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("name a shell: bash, zsh, fish");
  });
});
