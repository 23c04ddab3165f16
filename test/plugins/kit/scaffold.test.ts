/**
 * `prx plugins new`: a folder per kind from the embedded templates, every placeholder filled in, and the examples in
 * plugins/ laid out as a scaffolded folder is.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPrxError } from "../../../src/core/errors.ts";
import { parseManifest } from "../../../src/plugins/manifest.ts";
import { GUEST_FILES } from "../../../src/plugins/kit/embedded/files.ts";
import { KIT_DIR } from "../../../src/plugins/kit/layout.ts";
import { PLUGIN_KINDS, scaffoldPlugin, toolNameOf, tsconfigFor } from "../../../src/plugins/kit/scaffold.ts";
import { tempDir } from "./helpers.ts";

const root = tempDir("prx-kit-new-");
afterAll(() => root.remove());
const EXAMPLES = join(import.meta.dir, "../../../plugins");

describe("prx plugins new", () => {
  for (const kind of PLUGIN_KINDS) {
    test(`--kind ${kind}: the files, a valid commented manifest, no placeholder left`, () => {
      const name = `my-${kind}`;
      const { dir, files } = scaffoldPlugin(name, kind, join(root.dir, name));
      const expected =
        kind === "remote"
          ? ["README.md", "plugin.test.ts", "plugin.toml", "plugin.ts", "tsconfig.json", "worker.ts"]
          : ["README.md", "plugin.test.ts", "plugin.toml", "src/plugin.ts", "tsconfig.json"];
      expect(files).toEqual(expected);
      for (const file of files) expect(readFileSync(join(dir, file), "utf8")).not.toMatch(/__[A-Z_]+__/);
      const toml = readFileSync(join(dir, "plugin.toml"), "utf8");
      expect(toml).toMatch(/^# /);
      const { manifest, warnings } = parseManifest(toml, join(dir, "plugin.toml"));
      expect(warnings).toEqual([]);
      expect(manifest.plugin.name).toBe(name);
      if (kind === "remote") expect(manifest.plugin.runtime).toBe("remote");
      else expect(manifest.capabilities.map((c) => c.type)).toEqual([kind]);
      // the editor's kit: the guest sources and the types generated from the WIT
      for (const file of Object.keys(GUEST_FILES)) expect(existsSync(join(dir, KIT_DIR, "kit", file))).toBe(true);
      expect(readFileSync(join(dir, KIT_DIR, ".gitignore"), "utf8")).toBe("*\n");
      expect(existsSync(join(dir, KIT_DIR, "worker-runtime", "index.ts"))).toBe(kind === "remote");
    });
  }

  test("a tool's name is the plugin's in snake_case", () => {
    const { dir } = scaffoldPlugin("word-count", "tool", join(root.dir, "word-count"));
    expect(toolNameOf("word-count")).toBe("word_count");
    expect(readFileSync(join(dir, "src/plugin.ts"), "utf8")).toContain('name: "word_count"');
  });

  test("refuses a name the manifest would refuse, and a folder that is not empty", () => {
    const refused = (fn: () => unknown, code: "USAGE" | "CONFLICT", text: string) => {
      try {
        fn();
      } catch (error) {
        expect(isPrxError(error, code)).toBe(true);
        expect((error as Error).message).toContain(text);
        return;
      }
      throw new Error("not refused");
    };
    refused(() => scaffoldPlugin("My Tool", "tool", join(root.dir, "x")), "USAGE", '"My Tool" is not a plugin name');
    const full = join(root.dir, "full");
    mkdirSync(full);
    writeFileSync(join(full, "keep.txt"), "mine");
    refused(() => scaffoldPlugin("full", "tool", full), "CONFLICT", "exists and is not empty");
    expect(readdirSync(full)).toEqual(["keep.txt"]);
  });
});

describe("the examples in plugins/", () => {
  const examples = readdirSync(EXAMPLES).filter((name) => existsSync(join(EXAMPLES, name, "plugin.toml")));

  test("one per capability, and the remote one", () => {
    const kinds = examples.flatMap((name) => {
      const { manifest } = parseManifest(readFileSync(join(EXAMPLES, name, "plugin.toml"), "utf8"), name);
      return manifest.plugin.runtime === "remote" ? ["remote"] : manifest.capabilities.map((c) => c.type);
    });
    expect([...new Set(kinds)].sort()).toEqual([...PLUGIN_KINDS].sort());
  });

  test("each carries the tsconfig.json, README.md and plugin.test.ts of a scaffolded folder", () => {
    for (const name of examples) {
      const remote = existsSync(join(EXAMPLES, name, "worker.ts"));
      expect(readFileSync(join(EXAMPLES, name, "tsconfig.json"), "utf8")).toBe(tsconfigFor(remote ? "remote" : "tool"));
      expect(existsSync(join(EXAMPLES, name, "README.md"))).toBe(true);
      expect(existsSync(join(EXAMPLES, name, "plugin.test.ts"))).toBe(true);
    }
  });
});
