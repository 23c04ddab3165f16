import type { BunPlugin } from "bun";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleConsole } from "./bundle.ts";

/**
 * For build.ts: bundles the console into `outDir` and returns a build plugin that replaces src/console/files.ts with
 * a module importing each file `with { type: "file" }`, so Bun embeds them in the binary and nothing is bundled at
 * run time. The files are read when the console is first requested, never at start.
 */
export async function consoleBuildPlugin(outDir: string): Promise<{ plugin: BunPlugin; bytes: number; files: number }> {
  const files = await bundleConsole();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const file of files) writeFileSync(join(outDir, file.name), file.bytes);
  const imports = files.map((file, i) => `import f${i} from ${JSON.stringify(join(outDir, file.name))} with { type: "file" };`);
  const entries = files.map((file, i) => `{ name: ${JSON.stringify(file.name)}, type: ${JSON.stringify(file.type)}, path: f${i} }`);
  const contents =
    `${imports.join("\n")}\n` +
    `const embedded = [${entries.join(", ")}];\n` +
    "export async function loadConsoleFiles() {\n" +
    "  return Promise.all(embedded.map(async (f) => ({ name: f.name, type: f.type, bytes: new Uint8Array(await Bun.file(f.path).arrayBuffer()) })));\n" +
    "}\n";
  const plugin: BunPlugin = {
    name: "prx-console-embed",
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]console[\\/]files\.ts$/ }, () => ({ contents, loader: "js" }));
    },
  };
  return { plugin, bytes: files.reduce((n, f) => n + f.bytes.byteLength, 0), files: files.length };
}
