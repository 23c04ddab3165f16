/**
 * The TypeScript of the kit is generated from the WIT folder prx embeds: the committed files are what the generator
 * makes of it now, every host interface a world imports is declared with every function, and the WIT-to-TS mapping
 * is the one QuickJS guests see.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exportTypes, hostDeclarations, importedHostInterfaces, witPackages } from "../../../src/plugins/kit/wit/generate.ts";
import { parseWitFiles, worldImports } from "../../../src/plugins/kit/wit/parse.ts";
import { GENERATED_FILES } from "../../../src/plugins/kit/wit/regenerate.ts";

const GUEST = join(import.meta.dir, "../../../src/plugins/kit/guest");

describe("generated from the PRX WIT", () => {
  test("the committed files are what the generator makes of the WIT folder (bun src/plugins/kit/wit/regenerate.ts)", () => {
    for (const [file, generate] of Object.entries(GENERATED_FILES)) expect(readFileSync(join(GUEST, file), "utf8")).toBe(generate());
  });

  test("every prx:host interface a world imports is a module with every one of its functions", () => {
    const { host, plugin } = witPackages();
    const imported = importedHostInterfaces(host, plugin);
    expect(imported.map((i) => i.name).sort()).toEqual(["config", "events", "http-outbound", "kv", "log", "memory"]);
    const dts = hostDeclarations();
    for (const iface of imported) {
      const start = dts.indexOf(`declare module "prx:host/${iface.name}@0.1.0" {`);
      expect(start).toBeGreaterThan(-1);
      const block = dts.slice(start, dts.indexOf("\n}", start));
      for (const fn of iface.functions) {
        const name = fn.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        expect(block).toMatch(new RegExp(`(export function|as) ${name}\\b`));
      }
    }
    expect(dts).not.toContain("prx:host/websocket");
  });

  test("each capability's export interface has the functions the host calls", () => {
    const types = exportTypes();
    expect(types).toContain("export interface ToolExports {\n  getSpec(): ToolSpec;");
    expect(types).toContain("  process(stage: string, dataJson: string): string;");
    expect(types).toContain("  storeMemory(key: string, content: string, category: string, sessionId: string | null): void;");
    expect(types).toMatch(/export interface CapabilityExports \{\n  tool: ToolExports;\n  middleware: MiddlewareExports;/);
  });

  test("the worlds' imports are read with their includes", () => {
    const { plugin } = witPackages();
    expect(worldImports(plugin, "middleware")).toEqual([
      "prx:host/log@0.1.0",
      "prx:host/config@0.1.0",
      "prx:host/kv@0.1.0",
      "prx:host/events@0.1.0",
    ]);
  });
});

describe("the WIT-to-TypeScript mapping (QuickJS guests)", () => {
  const files = {
    "a.wit": `package prx:host@1.0.0;
/// docs of i
interface i {
  enum colour { red, dark-green }
  record thing { name: string, size: option<u64>, bytes: list<u8> }
  /// gets one
  get: func(key: string, raw: option<list<u8>>) -> option<thing>;
  pairs: func() -> list<tuple<string, s32>>;
  delete: func(key: string) -> result<bool, string>;
  paint: func(c: colour) -> result<_, string>;
}
world w { import i; }`,
    "b.wit": "package prx:plugin@1.0.0;\nworld p { import prx:host/i@1.0.0; export e; }\ninterface e { run: func() -> result<string, string>; }",
  };

  test("option, result, list<u8>, tuple, enum, u64 and a reserved name", () => {
    const parsed = parseWitFiles(files);
    const i = parsed.get("prx:host")!.interfaces[0]!;
    expect(i.functions.map((f) => f.name)).toEqual(["get", "pairs", "delete", "paint"]);
    expect(i.docs).toEqual(["docs of i"]);
    const dts = hostDeclarations(files);
    expect(dts).toContain(`declare module "prx:host/i@1.0.0" {`);
    expect(dts).toContain('export type Colour = "red" | "dark-green";');
    expect(dts).toContain("size: number | null;");
    expect(dts).toContain("bytes: Uint8Array;");
    expect(dts).toContain("export function get(key: string, raw: Uint8Array | number[] | null | undefined): Thing | null;");
    expect(dts).toContain("export function pairs(): Array<[string, number]>;");
    expect(dts).toContain("function delete_(key: string): boolean;\n  export { delete_ as delete };");
    expect(dts).toContain("export function paint(c: Colour): void;");
    expect(dts).toContain("@throws {string} the host's error (the err of the WIT result)");
  });

  test("a construct outside the subset is an error naming the file and the line", () => {
    const bad = { "x.wit": "package t:x@1.0.0;\ninterface x {\n  variant shape { circle(f32) }\n}\n" };
    expect(() => parseWitFiles(bad)).toThrow("x.wit:3: unsupported item 'variant' in interface x");
    expect(() => parseWitFiles({ "y.wit": "package t:y;\ninterface y { f: func(a: borrow<r>); }" })).toThrow("y.wit:2: unsupported type borrow<...>");
  });
});
