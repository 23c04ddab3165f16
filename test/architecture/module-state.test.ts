/**
 * Plugin state has one owner, the PluginRuntime: no module of src/plugins keeps mutable process-wide state (a
 * table, a counter, a flag) at its top level, except the few places below, each for a reason.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, sourceFiles } from "./imports.ts";

const ALLOWED: Record<string, string> = {
  "src/plugins/runtime/registry.ts runtimes": "the one registry: a runtime per canonical workspace in a process",
  "src/plugins/wasm/artifact-cache.ts entries": "compiled code by content hash, while a sandbox uses it: immutable, shared on purpose",
  "src/plugins/wasm/artifact-cache.ts compiles": "a count of compilations, read by tests and benchmarks",
  "src/plugins/wasm/transpile.ts transpiles": "a count of transpilations, read by tests and benchmarks",
  "src/plugins/wasm/instrument-cache.ts instrumentations": "a count of instrumentations, read by tests and benchmarks",
  "src/plugins/remote/transport/transport.ts workerEntry": "where the embedded worker entry file is: a process constant",
  "src/plugins/remote/host/memory/process-rss.ts pageBytes": "the kernel's page size, read once: a process constant",
  "src/plugins/fingerprint.ts manifestJsons": "each parsed manifest's JSON, keyed by that immutable object: gone with it",
  "src/plugins/dir-watch.ts libc": "libc's inotify functions through bun:ffi, opened once per process (each runtime has its own watch)",
  "src/plugins/kit/build/qjs-engine.ts engine": "the kit's QuickJS build engine, a native library: it loads once per process",
};

/**
 * Files that run as a thread or process of their own (a sandbox Worker, a plugin's Worker or child), or inside a
 * plugin's guest (the kit's guest library is compiled into each kit-built component: its state is per instance).
 */
const OWN_THREAD = [/^src\/plugins\/wasm\/sandbox\/worker\.ts$/, /^src\/plugins\/wasm\/host\//, /^src\/plugins\/remote\/worker-runtime\//, /^src\/plugins\/kit\/guest\//];

/** A top-level declaration, with or without an initializer (`let handle: T;` is state too). */
const MUTABLE = /^(?:export )?(let|const) (\w+)(?:: ([^=;]+))?(?: = ?(new (?:Map|WeakMap|Set|WeakSet)\b)?|;)/gm;

test("no module of the plugin runtime holds process-wide mutable state outside the runtime", () => {
  const found: string[] = [];
  for (const file of sourceFiles().filter((f) => f.startsWith("src/plugins/"))) {
    if (OWN_THREAD.some((pattern) => pattern.test(file))) continue;
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(MUTABLE)) {
      const [, kind, name, type] = m;
      const table = m[4] !== undefined;
      const constant = /^[A-Z0-9_]+$/.test(name!) || (type ?? "").trim().startsWith("Readonly");
      if (kind === "const" && (!table || constant)) continue;
      if (kind === "let" || table) {
        const key = `${file} ${name}`;
        if (!(key in ALLOWED)) found.push(key);
      }
    }
  }
  expect(found).toEqual([]);
});
