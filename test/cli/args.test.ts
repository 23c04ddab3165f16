import { describe, expect, test } from "bun:test";
import { parseCommand } from "../../src/cli/args.ts";
import { PrxError } from "../../src/core/errors.ts";

const OPTIONS = {
  message: { type: "string", short: "m" },
  json: { type: "boolean" },
  force: { type: "boolean", short: "f" },
} as const;

const parse = (argv: string[], allowPositionals = true) => parseCommand("prx t", argv, OPTIONS, allowPositionals);

function usage(argv: string[], allowPositionals = true): string {
  try {
    parse(argv, allowPositionals);
  } catch (error) {
    expect(error).toBeInstanceOf(PrxError);
    expect((error as PrxError).code).toBe("USAGE");
    return (error as PrxError).message;
  }
  throw new Error(`${argv.join(" ")} parsed`);
}

describe("parseCommand", () => {
  test("long and short spellings of values and flags, and the global options", () => {
    for (const argv of [["--message", "hi"], ["--message=hi"], ["-m", "hi"], ["-mhi"]]) {
      expect(parse(argv).values).toEqual({ message: "hi" });
    }
    expect(parse(["--json", "-f", "-w", "/tmp/x", "-h"]).values).toEqual({ json: true, force: true, workspace: "/tmp/x", help: true });
    expect(parse(["--workspace=/a", "--message="]).values).toEqual({ workspace: "/a", message: "" });
  });

  test("flag groups, a value at the end of a group, the last repeat wins", () => {
    expect(parse(["-fh"]).values).toEqual({ force: true, help: true });
    expect(parse(["-fm", "hi"]).values).toEqual({ force: true, message: "hi" });
    expect(parse(["-fmhi"]).values).toEqual({ force: true, message: "hi" });
    expect(parse(["-m", "a", "--message", "b"]).values).toEqual({ message: "b" });
  });

  test("positionals, `-` and everything after `--`", () => {
    expect(parse(["a", "-f", "b", "-", "--", "--json", "-m"])).toEqual({ values: { force: true }, positionals: ["a", "b", "-", "--json", "-m"] });
    expect(parse(["-m", "-"]).values).toEqual({ message: "-" });
    expect(parse(["--message=-x"]).values).toEqual({ message: "-x" });
  });

  test("mistakes are usage errors that say what to do", () => {
    expect(usage(["--mesage", "x"])).toBe("prx t: unknown flag '--mesage'; did you mean '--message'? (see prx t --help)");
    expect(usage(["-x"])).toContain("prx t: unknown flag '-x'");
    expect(usage(["-fx"])).toContain("prx t: unknown flag '-x'");
    expect(usage(["--message"])).toBe("prx t: --message needs a value");
    expect(usage(["-m"])).toBe("prx t: --message needs a value");
    expect(usage(["-w"])).toBe("prx t: --workspace needs a value");
    expect(usage(["-m", "--json"])).toBe("prx t: -m needs a value, not '--json' (for a value starting with -, write --message=--json)");
    expect(usage(["--json=yes"])).toBe("prx t: --json does not take a value");
    expect(usage(["extra"], false)).toBe("prx t: unexpected argument 'extra' (this command takes no positional arguments)");
    expect(usage(["--", "extra"], false)).toContain("unexpected argument 'extra'");
    expect(usage(["--no-json"])).toContain("unknown flag '--no-json'");
  });

  test("option names are own keys only", () => {
    expect(usage(["--toString"])).toContain("unknown flag '--toString'");
    expect(usage(["--constructor=x"])).toContain("unknown flag '--constructor'");
  });
});
