import type { BunPlugin } from "bun";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../../core/errors.ts";

/**
 * Bun build plugin for `bun build --compile` (build.ts): embeds the QuickJS build engine, componentize-qjs's native
 * Node-API library for this platform, zstd-compressed (39 MB -> ~10 MB), by replacing qjs-addon-asset.ts with its
 * path inside the binary and its checksum. The compressed file is kept under node_modules/.cache so a rebuild of prx
 * does not compress it again.
 */
export const QJS_COMPRESSION_LEVEL = 9;

/** `linux-x64-gnu`, `darwin-arm64`, ...: the suffix of componentize-qjs's binding packages. */
export function bindingTriple(platform = process.platform, arch = process.arch): string {
  if (platform === "linux") {
    const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? "gnu" : "musl"}`;
  }
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The native library of componentize-qjs for this machine, as npm installed it. */
export function findQjsAddon(root: string): string {
  const triple = bindingTriple();
  const file = `componentize-qjs.${triple}.node`;
  // where componentize-qjs's own loader looks: beside its index.js, then in its binding package
  const modules = join(root, "node_modules");
  const candidates = [join(modules, "componentize-qjs", file), join(modules, "@andreiltd", `componentize-qjs-binding-${triple}`, file)];
  const found = candidates.find((path) => existsSync(path));
  if (!found) {
    throw new PrxError("PLUGIN_BUILD", `componentize-qjs has no native library for ${triple} here (looked at ${candidates.join(", ")})`, {
      hint: "run `bun install` on the machine the binary is built for",
    });
  }
  return found;
}

/** The compressed library (made once per library version) and the SHA-256 of the uncompressed one. */
export function compressedQjsAddon(root: string): { path: string; sha256: string } {
  const library = readFileSync(findQjsAddon(root));
  const sha256 = createHash("sha256").update(library).digest("hex");
  const dir = join(root, "node_modules", ".cache", "prx-kit");
  const path = join(dir, `componentize-qjs-${sha256.slice(0, 16)}.node.zst`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, Bun.zstdCompressSync(library, { level: QJS_COMPRESSION_LEVEL }));
    renameSync(tmp, path);
  }
  return { path, sha256 };
}

export function kitBuildPlugin(root: string): BunPlugin {
  return {
    name: "prx-kit-embed",
    setup(build) {
      build.onLoad({ filter: /kit[\\/]build[\\/]qjs-addon-asset\.ts$/ }, () => {
        const { path, sha256 } = compressedQjsAddon(root);
        return {
          contents:
            `import asset from ${JSON.stringify(path)} with { type: "file" };\n` +
            "export const EMBEDDED_QJS_ADDON = asset;\n" +
            `export const EMBEDDED_QJS_ADDON_SHA256 = ${JSON.stringify(sha256)};\n`,
          loader: "ts",
        };
      });
    },
  };
}
