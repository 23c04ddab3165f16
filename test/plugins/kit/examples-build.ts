/**
 * The example plugins of plugins/, built the way their users build them: `prx plugins build` of the compiled binary.
 * Built once per version of their sources (the examples, the kit, the WIT, the QuickJS engine) into a cache in the
 * system temp dir, like test/fixtures/pdk-js/build.ts; the bench reuses it.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";

const ROOT = resolve(import.meta.dir, "../../..");
export const EXAMPLES_DIR = join(ROOT, "plugins");
/** The examples with a build step (the remote one runs from its sources). */
export const KIT_EXAMPLES = ["notes-tool", "pii-redact", "audit-hook", "daily-digest", "http-provider", "kv-memory"] as const;
export type KitExample = (typeof KIT_EXAMPLES)[number];

/** What a build of the examples reads: their files, the kit, the WIT folder and the engine's version. */
function sourceKey(): string {
  const hash = createHash("sha256");
  const add = (dir: string) => {
    for (const path of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
      if (path.split(/[\\/]/).some((p) => p === ".prx-kit" || p === "node_modules") || path.endsWith(".wasm")) continue;
      const full = join(dir, path);
      if (statSync(full).isFile()) hash.update(`\0${full}\0`).update(readFileSync(full));
    }
  };
  for (const name of KIT_EXAMPLES) add(join(EXAMPLES_DIR, name));
  add(join(ROOT, "src/plugins/kit"));
  add(join(ROOT, "src/plugins/wasm/wit"));
  hash.update(readFileSync(join(ROOT, "node_modules/componentize-qjs/package.json")));
  hash.update(readFileSync(import.meta.path));
  return hash.digest("hex").slice(0, 16);
}

/** Copy an example without what a build writes. */
export function copyExample(name: string, to: string): void {
  cpSync(join(EXAMPLES_DIR, name), to, {
    recursive: true,
    filter: (src) => !src.includes(".prx-kit") && !src.endsWith("plugin.wasm") && !src.endsWith(".tar.gz"),
  });
}

export interface BuiltExamples {
  dir: string;
  /** `prx plugins build --json` of each, as measured when it was built. */
  reports: Record<KitExample, { bytes: number; ms: number }>;
}

let built: Promise<BuiltExamples> | undefined;

export function ensureExamplesBuilt(env: Record<string, string>): Promise<BuiltExamples> {
  built ??= (async () => {
    await ensureBinary();
    const out = join(tmpdir(), "prx-kit-examples", sourceKey());
    if (existsSync(join(out, "reports.json"))) return { dir: out, reports: JSON.parse(readFileSync(join(out, "reports.json"), "utf8")) };
    const staging = `${out}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    const reports: Record<string, { bytes: number; ms: number }> = {};
    for (const name of KIT_EXAMPLES) {
      copyExample(name, join(staging, name));
      const proc = Bun.spawn([BINARY, "plugins", "build", join(staging, name), "--json"], { env, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`prx plugins build ${name} failed:\n${stderr}`);
      const report = JSON.parse(stdout) as { bytes: number; ms: number };
      reports[name] = { bytes: report.bytes, ms: report.ms };
    }
    writeFileSync(join(staging, "reports.json"), JSON.stringify(reports));
    rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
    return { dir: out, reports: reports as BuiltExamples["reports"] };
  })();
  return built;
}
