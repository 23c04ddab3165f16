import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "@bytecodealliance/jco";
import { prepareModule } from "../../../src/plugins/wasm/artifact-cache.ts";
import { INSTRUMENT_VERSION } from "../../../src/plugins/wasm/instrument/abi.ts";
import { instrumentCached, instrumentCount } from "../../../src/plugins/wasm/instrument-cache.ts";
import { removeDir } from "./helpers.ts";

/** Instrumented bytes are written once per content, version, metering and memory cap, and read back after. */
const root = mkdtempSync(join(tmpdir(), "prx-instrument-cache-"));
afterAll(() => removeDir(root));

const MODULE = `(module (memory 1) (func (export "run") (loop $l (br_if $l (i32.const 0)))))`;

describe("instrumented bytes on disk", () => {
  test("the first call instruments and writes the file; the next one only reads it", async () => {
    const bytes = await parse(MODULE);
    const path = join(root, "direct", "m.wasm");
    const before = instrumentCount();
    const first = instrumentCached(bytes, "m", "interrupt", path);
    expect(instrumentCount()).toBe(before + 1);
    expect([...readFileSync(path)]).toEqual([...first]);
    const second = instrumentCached(bytes, "m", "interrupt", path);
    expect(instrumentCount()).toBe(before + 1);
    expect([...second]).toEqual([...first]);
    expect(readdirSync(join(root, "direct"))).toEqual(["m.wasm"]); // no temporary file left behind
  });

  test("a core module plugin: one file per metering and memory cap, named with the pass's version", async () => {
    const bytes = await parse(MODULE);
    const cacheDir = join(root, "cache");
    await prepareModule("m", bytes, cacheDir, 1, "interrupt");
    await prepareModule("m", bytes, cacheDir, 1, "full");
    await prepareModule("m", bytes, cacheDir, 2, "full");
    const [hash] = readdirSync(join(cacheDir, "wasm-modules"));
    expect(readdirSync(join(cacheDir, "wasm-modules", hash!)).sort()).toEqual([
      `instrumented-v${INSTRUMENT_VERSION}-full-16p.wasm`,
      `instrumented-v${INSTRUMENT_VERSION}-full-32p.wasm`,
      `instrumented-v${INSTRUMENT_VERSION}-interrupt-16p.wasm`,
    ]);
  });
});
