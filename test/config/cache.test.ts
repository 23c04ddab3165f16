/**
 * prx reuses the validated config of its last start (cache/config.json) while config.toml, the override variables
 * and the code that validates it stay the same; any change validates again, and a broken cache is only skipped. The
 * binary and a run from source key it the same way.
 */
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { CONFIG_CACHE_FILE } from "../../src/config/cache.ts";
import { loadConfigCached } from "../../src/config/index.ts";
import { SCHEMA_SOURCES } from "../../src/config/schema-fingerprint.ts";
import { ensureBinary, ROOT, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

const TWO_PROVIDERS =
  'default_provider = "first"\ndefault_model = "m"\n[providers.first]\nkind = "offline"\n[providers.second]\nkind = "offline"\n';

let cleanup: () => void = () => {};
afterEach(() => cleanup());
beforeAll(() => ensureBinary(), 300_000);

function workspace(config: string): string {
  const ws = tempWorkspace(config);
  cleanup = ws.cleanup;
  return ws.dir;
}

const cacheFile = (dir: string) => join(dir, "cache", CONFIG_CACHE_FILE);

/** One offline turn; the offline provider's reply names the provider that answered. */
async function answeredBy(dir: string, env: Record<string, string> = {}): Promise<string> {
  const run = await runPrx(["agent", "-w", dir, "-m", "hi"], { env: { HOME: dir, ...env } });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return /I am "([^"]+)"/.exec(run.stdout)?.[1] ?? `(no provider named in: ${run.stdout})`;
}

describe("the validated config cache", () => {
  test("a start writes it and the next start uses it", async () => {
    const dir = workspace(TWO_PROVIDERS);
    expect(await answeredBy(dir)).toBe("first");
    expect(existsSync(cacheFile(dir))).toBe(true);
    // the entry still matches config.toml, so a changed value in it shows that it, not the file, was read
    const entry = JSON.parse(readFileSync(cacheFile(dir), "utf8"));
    entry.config.default_provider = "second";
    writeFileSync(cacheFile(dir), JSON.stringify(entry));
    expect(await answeredBy(dir)).toBe("second");
  });

  test("an edited config.toml is validated again: a new value is used, a bad one is refused naming key and line", async () => {
    const dir = workspace(TWO_PROVIDERS);
    expect(await answeredBy(dir)).toBe("first");
    writeFileSync(join(dir, "config.toml"), TWO_PROVIDERS.replace('default_provider = "first"', 'default_provider = "second"'));
    expect(await answeredBy(dir)).toBe("second");
    writeFileSync(join(dir, "config.toml"), TWO_PROVIDERS + "[agent]\nmax_tool_iterations = 0\n");
    const bad = await runPrx(["agent", "-w", dir, "-m", "hi"], { env: { HOME: dir } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("config.toml:8");
    expect(bad.stderr).toContain("agent.max_tool_iterations");
  });

  test("an override variable's value is part of what the cache depends on", async () => {
    const dir = workspace(TWO_PROVIDERS);
    expect(await answeredBy(dir)).toBe("first");
    expect(await answeredBy(dir, { PRX_PROVIDER: "second" })).toBe("second");
    expect(await answeredBy(dir)).toBe("first");
  });

  test("an unreadable cache is skipped and written again", async () => {
    const dir = workspace(TWO_PROVIDERS);
    expect(await answeredBy(dir)).toBe("first");
    writeFileSync(cacheFile(dir), "{ not json");
    expect(await answeredBy(dir)).toBe("first");
    expect(JSON.parse(readFileSync(cacheFile(dir), "utf8")).config.default_provider).toBe("first");
  });
});

test("running from source caches as the binary does, under the same key", async () => {
  const dir = workspace(TWO_PROVIDERS);
  expect(await answeredBy(dir)).toBe("first");
  const written = JSON.parse(readFileSync(cacheFile(dir), "utf8")).key;
  const loaded = await loadConfigCached(join(dir, "config.toml"), join(dir, "cache"), {});
  expect(loaded.config.default_provider).toBe("first");
  expect(JSON.parse(readFileSync(cacheFile(dir), "utf8")).key).toBe(written);
});

/** Files whose code does not change what a config validates to (the errors' messages are never cached). */
const NOT_IN_RESULT = new Set(["core/errors.ts"]);

test("the schema fingerprint covers every source module the config loader and its schema import", () => {
  const src = join(ROOT, "src");
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || NOT_IN_RESULT.has(path)) return;
    seen.add(path);
    for (const { path: specifier } of transpiler.scanImports(readFileSync(join(src, path), "utf8"))) {
      if (specifier.startsWith(".")) visit(normalize(join(path, "..", specifier)));
    }
  };
  visit("config/loader.ts");
  expect([...seen].sort()).toEqual([...SCHEMA_SOURCES].sort());
});
