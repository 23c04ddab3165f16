import { describe, expect, test } from "bun:test";
import { isPrxError, type PrxError } from "../../../src/core/errors.ts";
import {
  DEFAULT_CAPABILITY_PRIORITY,
  DEFAULT_MAX_EXECUTION_TIME_MS,
  DEFAULT_MAX_MEMORY_MB,
  DEFAULT_WASM_FILE,
  MANIFEST_MAX_CAPABILITIES,
  MAX_EXECUTION_TIME_MS_LIMIT,
  MAX_HTTP_REQUESTS_PER_CALL_LIMIT,
  MAX_KV_STORAGE_MB_LIMIT,
  MAX_MEMORY_MB_LIMIT,
  MIDDLEWARE_STAGES,
  parseManifest,
} from "../../../src/plugins/manifest.ts";

const head = `[plugin]\nname = "demo"\nversion = "1.0.0"\n`;

function fails(source: string): PrxError {
  try {
    parseManifest(source, "/p/plugin.toml");
  } catch (error) {
    if (isPrxError(error, "PLUGIN_MANIFEST")) return error;
    throw error;
  }
  throw new Error("expected the manifest to be rejected");
}

describe("manifest", () => {
  test("a misspelt permission is refused at its line, naming every permission", () => {
    const error = fails(head + `[permissions]\nrequired = ["log", "http-outbund"]\n`);
    expect(error.message).toContain("/p/plugin.toml:5");
    expect(error.message).toContain('unknown permission "http-outbund"');
    expect(error.message).toContain("http-outbound");
    const optional = fails(head + `[permissions]\noptional = ["event"]\n`);
    expect(optional.message).toContain('unknown permission "event"');
  });

  test("every host interface is a permission a manifest may name", () => {
    const { manifest } = parseManifest(head + `[permissions]\nrequired = ["log", "config", "kv", "http-outbound", "memory", "events", "websocket"]\n`);
    expect(manifest.permissions.required).toHaveLength(7);
  });

  test("a minimal manifest gets every default", () => {
    const { manifest, warnings } = parseManifest(head + `[[capabilities]]\ntype = "tool"\nname = "echo"\n`);
    expect(warnings).toEqual([]);
    expect(manifest.plugin.wasm).toBe(DEFAULT_WASM_FILE);
    expect(manifest.plugin.runtime).toBe("wasm");
    expect(manifest.plugin.api_version).toBe("0.1.0");
    expect(manifest.capabilities[0]!.priority).toBe(DEFAULT_CAPABILITY_PRIORITY);
    expect(manifest.resources.max_memory_mb).toBe(DEFAULT_MAX_MEMORY_MB);
    expect(manifest.resources.max_execution_time_ms).toBe(DEFAULT_MAX_EXECUTION_TIME_MS);
    expect(manifest.resources.max_fuel).toBeUndefined();
    expect(manifest.permissions).toEqual({ required: [], optional: [], http_allowlist: [] });
  });

  test("plugin name: 64 characters pass, 65 and uppercase fail", () => {
    const name64 = "a" + "b".repeat(63);
    expect(parseManifest(`[plugin]\nname = "${name64}"\nversion = "1"\n`).manifest.plugin.name).toBe(name64);
    expect(fails(`[plugin]\nname = "${name64}b"\nversion = "1"\n`).message).toContain('"plugin.name"');
    const refused = fails(`[plugin]\nname = "Demo"\nversion = "1"\n`);
    expect(refused.message).toContain("/p/plugin.toml:2");
    // the hint names commands the binary has, not documents a user of it may not have
    expect(refused.hint).toContain("prx plugins new NAME");
  });

  test("api_version: 0.1.x accepted, other versions rejected clearly", () => {
    expect(parseManifest(head + `api_version = "0.1.7"\n`).manifest.plugin.api_version).toBe("0.1.7");
    expect(fails(head + `api_version = "0.2.0"\n`).message).toMatch(/plugin\.api_version.*incompatible api_version.*0\.1\.0/);
    expect(fails(head + `api_version = "1.0.0"\n`).message).toContain("incompatible api_version");
  });

  test("unknown keys are warnings naming file, line and path; the manifest still loads", () => {
    const source = head + `homepage = "x"\n[[capabilities]]\ntype = "tool"\nname = "t"\ncolor = "red"\n[extras]\na = 1\n`;
    const { manifest, warnings } = parseManifest(source, "/p/plugin.toml");
    expect(manifest.capabilities).toHaveLength(1);
    expect(warnings).toContain('/p/plugin.toml:4: "plugin.homepage": unknown key, ignored');
    expect(warnings).toContain('/p/plugin.toml:8: "capabilities.0.color": unknown key, ignored');
    expect(warnings.some((w) => w.includes('"extras"'))).toBe(true);
  });

  test("errors name the file, line, key path and problem; invalid TOML names the position", () => {
    const error = fails(head + `[resources]\nmax_memory_mb = "lots"\n`);
    expect(error.message).toBe('/p/plugin.toml:5: "resources.max_memory_mb": Invalid input: expected number, received string');
    expect(fails(head + `[[capabilities]]\ntype = "widget"\nname = "x"\n`).message).toContain('"capabilities.0.type"');
    expect(fails(head + `version = = 2\n`).message).toMatch(/^\/p\/plugin\.toml:4:\d+: invalid TOML/);
  });

  test("hook events: string array and table form both normalise to patterns", () => {
    const strings = parseManifest(head + `[[capabilities]]\ntype = "hook"\nname = "h"\nevents = ["prx.lifecycle.*", "agent_end"]\n`);
    expect(strings.manifest.capabilities[0]!.events).toEqual(["prx.lifecycle.*", "agent_end"]);
    const tables = parseManifest(
      head + `[[capabilities]]\ntype = "hook"\nname = "h"\n[[capabilities.events]]\npattern = "a.*"\n[[capabilities.events]]\npattern = "*"\nnote = "x"\n`,
    );
    expect(tables.manifest.capabilities[0]!.events).toEqual(["a.*", "*"]);
    expect(tables.warnings.some((w) => w.includes('"capabilities.0.events.1.note"'))).toBe(true);
    expect(fails(head + `[[capabilities]]\ntype = "hook"\nname = "h"\n`).message).toContain("at least one event");
  });

  test("middleware stages default to all four; invalid stages are rejected", () => {
    const all = parseManifest(head + `[[capabilities]]\ntype = "middleware"\nname = "m"\n`);
    expect(all.manifest.capabilities[0]!.stages).toEqual([...MIDDLEWARE_STAGES]);
    const some = parseManifest(head + `[[capabilities]]\ntype = "middleware"\nname = "m"\nstages = ["outbound"]\n`);
    expect(some.manifest.capabilities[0]!.stages).toEqual(["outbound"]);
    expect(fails(head + `[[capabilities]]\ntype = "middleware"\nname = "m"\nstages = ["sideways"]\n`).message).toContain("stages");
  });

  test("cron needs a 5- or 6-field schedule", () => {
    const cron = (s: string) => head + `[[capabilities]]\ntype = "cron"\nname = "c"\nschedule = "${s}"\n`;
    expect(parseManifest(cron("*/5 * * * *")).manifest.capabilities[0]!.schedule).toBe("*/5 * * * *");
    expect(parseManifest(cron("0 */5 * * * *")).manifest.capabilities).toHaveLength(1);
    expect(fails(cron("* * * *")).message).toContain("5- or 6-field");
  });

  test("duplicate capabilities are rejected", () => {
    const cap = `[[capabilities]]\ntype = "tool"\nname = "t"\n`;
    expect(fails(head + cap + cap).message).toContain('duplicate tool "t"');
  });

  test(`at most ${MANIFEST_MAX_CAPABILITIES} capabilities`, () => {
    const caps = (n: number) => Array.from({ length: n }, (_, i) => `[[capabilities]]\ntype = "tool"\nname = "t${i}"\n`).join("");
    expect(parseManifest(head + caps(MANIFEST_MAX_CAPABILITIES)).manifest.capabilities).toHaveLength(MANIFEST_MAX_CAPABILITIES);
    expect(fails(head + caps(MANIFEST_MAX_CAPABILITIES + 1)).message).toContain('"capabilities"');
  });

  test("resource limits: each bound passes at the limit and fails one past it", () => {
    const bounds: [string, number][] = [
      ["max_memory_mb", MAX_MEMORY_MB_LIMIT],
      ["max_execution_time_ms", MAX_EXECUTION_TIME_MS_LIMIT],
      ["max_http_requests_per_call", MAX_HTTP_REQUESTS_PER_CALL_LIMIT],
      ["max_kv_storage_mb", MAX_KV_STORAGE_MB_LIMIT],
    ];
    for (const [key, limit] of bounds) {
      const ok = parseManifest(head + `[resources]\n${key} = ${limit}\n`).manifest.resources as Record<string, unknown>;
      expect(ok[key]).toBe(limit);
      expect(fails(head + `[resources]\n${key} = ${limit + 1}\n`).message).toContain(`"resources.${key}"`);
    }
    expect(parseManifest(head + `[resources]\nmax_fuel = 1000000\n`).manifest.resources.max_fuel).toBe(1_000_000);
  });

  test('runtime = "remote" needs [remote]; with it defaults apply', () => {
    const remote = `[plugin]\nname = "r"\nversion = "1"\nruntime = "remote"\n`;
    expect(fails(remote).message).toContain('"remote"');
    const { manifest } = parseManifest(remote + `[remote]\nentry = "worker.ts"\n[remote.settings]\nKEY = "v"\n`);
    expect(manifest.remote).toMatchObject({ entry: "worker.ts", transport: "worker", settings: { KEY: "v" } });
    expect(fails(remote + `[remote]\nentry = "w.ts"\ntransport = "carrier-pigeon"\n`).message).toContain('"remote.transport"');
  });

  test("[remote.settings] take any TOML value: tables and arrays are kept as JSON objects and arrays", () => {
    const remote = `[plugin]\nname = "r"\nversion = "1"\nruntime = "remote"\n[remote]\nentry = "worker.ts"\n`;
    const { manifest } = parseManifest(
      remote + `[remote.settings]\nLIMIT = 3\nON = true\nTAGS = ["a", "b"]\n[remote.settings.mcp.servers.fs]\ntype = "stdio"\nargs = ["x"]\n`,
    );
    expect(manifest.remote!.settings).toEqual({ LIMIT: 3, ON: true, TAGS: ["a", "b"], mcp: { servers: { fs: { type: "stdio", args: ["x"] } } } });
  });
});

describe("load timeout", () => {
  test("a remote plugin's ready timeout extends the default load limit; others use PLUGIN_LOAD_TIMEOUT_MS", async () => {
    const { loadTimeoutFor, PLUGIN_LOAD_TIMEOUT_MS, REMOTE_LOAD_MARGIN_MS } = await import("../../../src/plugins/loading.ts");
    const { REMOTE_MAX_READY_TIMEOUT_MS } = await import("../../../src/plugins/remote/limits.ts");
    const base = { name: "p", version: "1", dir: "/x", entryPath: "/x/w.ts", capabilities: [], config: {}, httpAllowlist: [] };
    const remote = (ready: number) => ({
      ...base,
      kind: "remote" as const,
      resources: { maxMemoryMb: 64, maxExecutionTimeMs: 5000, maxHttpRequestsPerCall: 10, maxKvStorageMb: 10, maxFuel: null },
      granted: new Set<string>(),
      remote: { entry: "w.ts", transport: "worker" as const, settings: {}, rpc_timeout_ms: 1000, ready_timeout_ms: ready },
    });
    expect(loadTimeoutFor(remote(1000))).toBe(PLUGIN_LOAD_TIMEOUT_MS);
    expect(loadTimeoutFor(remote(REMOTE_MAX_READY_TIMEOUT_MS))).toBe(REMOTE_MAX_READY_TIMEOUT_MS + REMOTE_LOAD_MARGIN_MS);
    const { remote: _omit, ...wasm } = remote(0);
    expect(loadTimeoutFor({ ...wasm, kind: "wasm-module" })).toBe(PLUGIN_LOAD_TIMEOUT_MS);
  });
});
