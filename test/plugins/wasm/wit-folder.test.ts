import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CapabilityTypes } from "../../../src/plugins/types.ts";
import { HOST_INTERFACES, WIT_FILES } from "../../../src/plugins/wasm/wit.ts";
import { openFilesystemForTools, WIT_DIR } from "../../fixtures/pdk-js/build.ts";

type Version = { major: bigint | number; minor: bigint | number; patch: bigint | number };
type Named = { namespace: string; package: string; interface: string; version?: Version };
const nameOf = (n: Named) =>
  `${n.namespace}:${n.package}/${n.interface}${n.version ? `@${n.version.major}.${n.version.minor}.${n.version.patch}` : ""}`;

function witFilesOnDisk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".wit"))
    .map((p) => relative(dir, join(dir, p)))
    .sort();
}

describe("the WIT folder plugin authors build against", () => {
  test("the embedded copy is the folder: same files, same text", () => {
    expect(witFilesOnDisk(WIT_DIR)).toEqual(Object.keys(WIT_FILES).sort());
    for (const [path, text] of Object.entries(WIT_FILES)) expect(readFileSync(join(WIT_DIR, path), "utf8")).toBe(text);
  });

  test("read by path as componentize tools read it, each world exports its interface and imports prx:host only", async () => {
    await openFilesystemForTools();
    const { componentWitMetadataForWorld } = await import("@bytecodealliance/jco-transpile/wasm-tools");
    for (const type of CapabilityTypes) {
      const world = (await componentWitMetadataForWorld({ tag: "path", val: WIT_DIR }, type)) as {
        imports: Named[];
        exports: Named[];
      };
      expect(world.exports.map(nameOf)).toEqual([`prx:plugin/${type}-exports@0.1.0`]);
      for (const name of world.imports.map(nameOf)) {
        expect(name).toMatch(new RegExp(`^prx:host/(${HOST_INTERFACES.join("|")})@0\\.1\\.0$`));
      }
    }
  });
});
