import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_MAX_BYTES, loadConfig, parseConfig } from "../../src/config/index.ts";
import { isPrxError, PrxError } from "../../src/core/errors.ts";
import { CONFIG_TEMPLATE } from "../../src/config/template.ts";

function failure(source: string): PrxError {
  try {
    parseConfig(source, "config.toml");
  } catch (error) {
    if (isPrxError(error)) return error;
    throw error;
  }
  throw new Error("expected parseConfig to fail");
}

describe("config loader", () => {
  test("a plugin's tool renames must be valid tool names", () => {
    const ok = parseConfig('[plugins.x]\ntools_owner = true\ntool_names = { a = "b_1" }\n', "config.toml");
    expect(ok.plugins.x).toMatchObject({ tools_owner: true, tool_names: { a: "b_1" } });
    expect(failure('[plugins.x]\ntool_names = { a = "has space" }\n').message).toContain("plugins.x.tool_names.a");
  });

  test("empty file gives defaults", () => {
    const config = parseConfig("");
    expect(config.default_provider).toBe("offline");
    expect(config.memory.backend).toBe("sqlite");
    expect(config.gateway.port).toBe(16830);
    expect(config.tools.shell_enabled).toBe(false);
  });

  test("the init template is valid and matches the defaults it documents", () => {
    const config = parseConfig(CONFIG_TEMPLATE);
    expect(config.default_provider).toBe("offline");
    expect(config.reliability.retries).toBe(2);
  });

  test("unknown keys name the key path and the line", () => {
    const error = failure(`default_model = "x"\n\n[agent]\ntemperature = 0.5\nfoo = 1\n`);
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain('config.toml:5: unknown key "agent.foo"');
  });

  test("unknown keys inside array tables and provider tables", () => {
    const source = `[providers.openai]\nbase_url = "https://api.openai.com/v1"\napi_key = "sk-oops"\n\n[[model_routes]]\nhint = "a"\nprovider = "openai"\nmodel = "m"\n\n[[model_routes]]\nhint = "b"\nprovider = "openai"\nmodle = "m"\n`;
    const error = failure(source);
    expect(error.message).toContain('config.toml:3: unknown key "providers.openai.api_key"');
    expect(error.message).toContain('config.toml:13: unknown key "model_routes.1.modle"');
    expect(error.message).toContain('"model_routes.1.model"');
  });

  test("wrong types name the path and line", () => {
    const error = failure(`[gateway]\nport = "eighty"\n`);
    expect(error.message).toMatch(/config\.toml:2: "gateway\.port": .*number/);
  });

  test("broken TOML names line and column", () => {
    const error = failure(`[agent]\ntemperature = = 1\n`);
    expect(error.code).toBe("CONFIG_PARSE");
    expect(error.message).toMatch(/^config\.toml:2:\d+: invalid TOML/);
  });

  test("memory backend accepts sqlite, postgres, none and wasm:<name> only", () => {
    expect(parseConfig(`[memory]\nbackend = "wasm:kvstore"`).memory.backend).toBe("wasm:kvstore");
    expect(parseConfig(`[memory]\nbackend = "postgres"\n[storage]\nbackend = "postgres"`).memory.backend).toBe("postgres");
    expect(failure(`[memory]\nbackend = "mysql"`).message).toContain("memory.backend");
  });

  test("[memory] vector_min_similarity: 0 and 1 pass, just outside them fails naming the key", () => {
    for (const value of [0, 1]) expect(parseConfig(`[memory]\nvector_min_similarity = ${value}`).memory.vector_min_similarity).toBe(value);
    for (const value of ["-0.01", "1.01"]) {
      expect(failure(`[memory]\nvector_min_similarity = ${value}`).message).toMatch(/config\.toml:2: "memory\.vector_min_similarity"/);
    }
  });

  test("[telemetry]: off by default; sample_ratio 0 and 1 pass, just outside them fails; headers name variables", () => {
    expect(parseConfig("").telemetry).toEqual({ protocol: "http/json", service_name: "prx", headers: {}, sample_ratio: 1 });
    const set = parseConfig(`[telemetry]\notlp_endpoint = "http://127.0.0.1:4318"\nheaders = { authorization = "OTLP_AUTH" }`);
    expect(set.telemetry).toMatchObject({ otlp_endpoint: "http://127.0.0.1:4318", headers: { authorization: "OTLP_AUTH" } });
    for (const value of [0, 1]) expect(parseConfig(`[telemetry]\nsample_ratio = ${value}`).telemetry.sample_ratio).toBe(value);
    for (const value of ["-0.01", "1.01"]) expect(failure(`[telemetry]\nsample_ratio = ${value}`).message).toContain("telemetry.sample_ratio");
    expect(failure(`[telemetry]\nheaders = { authorization = "not a variable" }`).message).toContain("telemetry.headers.authorization");
    expect(parseConfig(`[telemetry]\nprotocol = "http/protobuf"`).telemetry.protocol).toBe("http/protobuf");
    expect(failure(`[telemetry]\nprotocol = "grpc"`).message).toContain("telemetry.protocol");
  });

  test("[storage] and [bus]: sqlite and local by default; postgres and redis with their URL variables", () => {
    const defaults = parseConfig("");
    expect(defaults.storage).toEqual({ backend: "sqlite", url_env: "DATABASE_URL", schema: "public", pool_max: 8, synchronous_commit: false });
    expect(defaults.bus).toEqual({ backend: "local", url_env: "REDIS_URL", prefix: "prx" });
    const set = parseConfig(`[storage]\nbackend = "postgres"\nurl_env = "PG"\nschema = "prx_a"\n[bus]\nbackend = "redis"\nprefix = "site:1"`);
    expect(set.storage).toMatchObject({ backend: "postgres", url_env: "PG", schema: "prx_a" });
    expect(set.bus).toMatchObject({ backend: "redis", prefix: "site:1" });
    expect(failure(`[storage]\nbackend = "mysql"`).message).toContain("storage.backend");
    expect(failure(`[storage]\nschema = "Bad-Name"`).message).toContain("storage.schema");
    expect(failure(`[bus]\nbackend = "kafka"`).message).toContain("bus.backend");
  });

  test("size limit: at the limit parses, one past fails", () => {
    const filler = (n: number) => "#".repeat(n - 1) + "\n";
    expect(() => parseConfig(filler(CONFIG_MAX_BYTES))).not.toThrow();
    expect(failure(filler(CONFIG_MAX_BYTES + 1)).message).toContain(`larger than ${CONFIG_MAX_BYTES} bytes`);
  });

  test("env overrides apply and are validated", () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-config-"));
    const path = join(dir, "config.toml");
    writeFileSync(path, `default_provider = "offline"\n`);
    const { config } = loadConfig(path, { PRX_MODEL: "gpt-x", PRX_GATEWAY_PORT: "9999" });
    expect(config.default_model).toBe("gpt-x");
    expect(config.gateway.port).toBe(9999);
    expect(() => loadConfig(path, { PRX_GATEWAY_PORT: "99999" })).toThrow(/PRX_GATEWAY_PORT/);
  });

  test("missing file means defaults", () => {
    const { config, path } = loadConfig(join(tmpdir(), "does-not-exist-prx", "config.toml"), {});
    expect(path).toBeNull();
    expect(config.agent.max_tool_iterations).toBe(10);
  });
});
