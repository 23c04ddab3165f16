/**
 * `bun src/plugins/kit/wit/regenerate.ts` rewrites the kit's generated files from the WIT folder (a test fails while
 * they differ from what the generator makes of it).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportTypes, hostDeclarations } from "./generate.ts";

export const GENERATED_FILES = {
  "prx-host.d.ts": hostDeclarations,
  "wit.ts": exportTypes,
} as const;

if (import.meta.main) {
  for (const [file, generate] of Object.entries(GENERATED_FILES)) writeFileSync(join(import.meta.dir, "..", "guest", file), generate());
}
