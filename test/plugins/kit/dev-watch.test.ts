import { expect, test } from "bun:test";
import { isWatchedSource } from "../../../src/plugins/kit/dev/watch.ts";

test("sources are watched; build outputs, dependencies, dot-files and editors' temporary files are not", () => {
  const outputs = ["plugin.wasm"];
  for (const source of ["src/plugin.ts", "plugin.toml", "src/lib/util.ts", "README.md", "src/v2.ts"]) {
    expect(isWatchedSource(source, outputs)).toBe(true);
  }
  const ignored = [
    "plugin.wasm",
    "node_modules/x/index.js",
    ".prx-kit/last-build.json",
    "src/.plugin.ts.swp",
    "src/plugin.ts~",
    "src/4913",
    "src/#plugin.ts#",
    "src/plugin.ts___jb_tmp___",
    "src/plugin.ts___jb_old___",
    "src/plugin.ts.kate-swp",
    "src/plugin.ts.tmp",
    "src/plugin.ts.tmp-12345",
    "plugin.tar.gz",
  ];
  for (const path of ignored) expect([path, isWatchedSource(path, outputs)]).toEqual([path, false]);
});
