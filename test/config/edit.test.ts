import { describe, expect, test } from "bun:test";
import { parse } from "smol-toml";
import { CONFIG_KEY_MAX_SEGMENTS, setConfigKey, splitKeyPath, tomlValue, unsetConfigKey } from "../../src/config/edit.ts";
import { isPrxError } from "../../src/core/errors.ts";

const FILE = `# my assistant
default_provider = "openai"   # the one I pay for
default_model = "gpt-4o-mini"

[gateway]
# keep it local
port = 16830
model_aliases = { "gpt-4o" = "gpt-4o-mini" }

[providers.openai]
kind = "openai-compatible"
models = [
  "gpt-4o-mini",
  "gpt-4o",
]

[[bindings]]
agent = "main"
`;

function refused(run: () => unknown, code: string): string {
  try {
    run();
  } catch (error) {
    expect(isPrxError(error, code as never)).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("key paths", () => {
  test("bare and quoted segments; a bad path is a usage error naming it", () => {
    expect(splitKeyPath('providers.x.model_info."gpt-4o".vision')).toEqual(["providers", "x", "model_info", "gpt-4o", "vision"]);
    expect(refused(() => splitKeyPath("a..b"), "USAGE")).toContain('"" needs quotes');
    expect(refused(() => splitKeyPath("a."), "USAGE")).toContain("ends with a dot");
    expect(refused(() => splitKeyPath('a."b'), "USAGE")).toContain("not closed");
  });

  test(`at most ${CONFIG_KEY_MAX_SEGMENTS} segments: at the limit passes, one more is refused`, () => {
    const path = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join(".");
    expect(splitKeyPath(path(CONFIG_KEY_MAX_SEGMENTS))).toHaveLength(CONFIG_KEY_MAX_SEGMENTS);
    expect(refused(() => splitKeyPath(path(CONFIG_KEY_MAX_SEGMENTS + 1)), "USAGE")).toContain(`more than ${CONFIG_KEY_MAX_SEGMENTS} segments`);
  });

  test("a value is TOML when it parses as TOML, else a string", () => {
    expect(tomlValue("8080")).toBe("8080");
    expect(tomlValue('["a", "b"]')).toBe('["a", "b"]');
    expect(tomlValue("gpt-4o")).toBe('"gpt-4o"');
    expect(tomlValue('say "hi"')).toBe('"say \\"hi\\""');
  });
});

describe("set and unset keep the rest of the file", () => {
  test("replacing a value keeps its comment and every other line", () => {
    const edited = setConfigKey(FILE, ["default_provider"], '"anthropic"');
    expect(edited).toBe(FILE.replace('default_provider = "openai"   # the one I pay for', 'default_provider = "anthropic" # the one I pay for'));
    expect(setConfigKey(FILE, ["gateway", "port"], "9000")).toBe(FILE.replace("port = 16830", "port = 9000"));
  });

  test("a value spanning lines is replaced whole", () => {
    const edited = setConfigKey(FILE, ["providers", "openai", "models"], '["o3"]');
    expect(parse(edited)).toMatchObject({ providers: { openai: { models: ["o3"] } } });
    expect(edited).toContain('kind = "openai-compatible"\nmodels = ["o3"]\n\n[[bindings]]');
  });

  test("a new key lands in its table, a top-level one before the first table, a new table at the end", () => {
    const inTable = setConfigKey(FILE, ["gateway", "host"], '"0.0.0.0"');
    expect(inTable).toContain('model_aliases = { "gpt-4o" = "gpt-4o-mini" }\nhost = "0.0.0.0"\n\n[providers.openai]');
    const top = setConfigKey(FILE, ["log_level"], '"debug"');
    expect(top).toContain('default_model = "gpt-4o-mini"\nlog_level = "debug"\n\n[gateway]');
    const table = setConfigKey(FILE, ["providers", "my llm", "base_url"], '"http://127.0.0.1:8080/v1"');
    expect(table.endsWith('\n\n[providers."my llm"]\nbase_url = "http://127.0.0.1:8080/v1"\n')).toBe(true);
    expect(parse(table)).toMatchObject({ providers: { "my llm": { base_url: "http://127.0.0.1:8080/v1" } } });
  });

  test("a key inside an inline table or an array of tables is refused naming the line", () => {
    expect(refused(() => setConfigKey(FILE, ["gateway", "model_aliases", "o3"], '"o3-mini"'), "CONFIG_INVALID")).toContain("line 8");
    expect(refused(() => setConfigKey(FILE, ["bindings", "agent"], '"work"'), "CONFIG_INVALID")).toContain("array of tables");
  });

  test("unset removes the key's lines (all of a value spanning lines); a key the file does not set is NOT_FOUND", () => {
    expect(unsetConfigKey(FILE, ["gateway", "port"])).toBe(FILE.replace("port = 16830\n", ""));
    const edited = unsetConfigKey(FILE, ["providers", "openai", "models"]);
    expect(edited).not.toContain("gpt-4o\",");
    expect(parse(edited)).toMatchObject({ providers: { openai: { kind: "openai-compatible" } } });
    expect(refused(() => unsetConfigKey(FILE, ["gateway", "host"]), "NOT_FOUND")).toContain("does not set gateway.host");
  });

  test("an empty file gets the key", () => {
    expect(setConfigKey("", ["default_model"], '"m"')).toBe('default_model = "m"\n');
    expect(setConfigKey("", ["gateway", "port"], "1")).toBe("[gateway]\nport = 1\n");
  });
});
