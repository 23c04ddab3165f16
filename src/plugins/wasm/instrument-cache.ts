import { existsSync, readFileSync } from "node:fs";
import { writeCacheFile } from "./cache-file.ts";
import { INSTRUMENT_VERSION } from "./instrument/abi.ts";
import { instrumentModule } from "./instrument/module.ts";
import type { Metering } from "./instrument/plan.ts";

let instrumentations = 0;

/** How many times this process ran the instrumentation pass (tests assert disk cache hits with it). */
export function instrumentCount(): number {
  return instrumentations;
}

/** Where the instrumented form of a core module is kept: the file name carries the pass's version and metering. */
export function instrumentedName(metering: Metering): string {
  return `instrumented-v${INSTRUMENT_VERSION}-${metering}`;
}

/**
 * The instrumented bytes of a core module (instrument/module.ts), read from `cachePath` when an earlier load wrote
 * them. The pass costs ~10-20 ms per MB (the 12 MB SpiderMonkey core module: ~150 ms), so every process would pay
 * it on its first load of a big plugin; the file is written atomically (temporary file, rename) under the module's
 * content hash (artifact-cache.ts), so a path names one content, one version, one metering, one memory cap.
 */
export function instrumentCached(bytes: Uint8Array, where: string, metering: Metering, cachePath: string): Uint8Array {
  if (existsSync(cachePath)) return readFileSync(cachePath);
  const { bytes: out } = instrumentModule(bytes, where, metering);
  instrumentations++;
  writeCacheFile(cachePath, out);
  return out;
}
