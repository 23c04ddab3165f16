import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/loader.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";

function refusal(source: string): string {
  try {
    parseConfig(source, "/w/config.toml");
  } catch (error) {
    if (isPrxError(error, "CONFIG_INVALID")) return error.message;
    throw error;
  }
  throw new Error("expected the config to be refused");
}

describe("cross-field checks", () => {
  test("postgres memory without postgres storage is refused at its line", () => {
    const message = refusal(`default_model = "x"\n\n[memory]\nbackend = "postgres"\n`);
    expect(message).toContain("/w/config.toml:4");
    expect(message).toContain('[storage] backend = "postgres"');
    expect(() => parseConfig(`[storage]\nbackend = "postgres"\n[memory]\nbackend = "postgres"\n`)).not.toThrow();
  });

  test("a default provider with no table and no preset is refused; a preset or a table passes", () => {
    expect(refusal(`default_provider = "opnai"\n`)).toContain('/w/config.toml:1: "default_provider": "opnai": no [providers.opnai] table');
    const preset = parseConfig(`default_provider = "openai"\ndefault_model = "gpt-4o-mini"\n`);
    expect(createProviderResolver(preset, { env: {} }).resolve("openai").name).toBe("openai");
    expect(() => parseConfig(`default_provider = "mine"\n[providers.mine]\nbase_url = "http://127.0.0.1:1/v1"\n`)).not.toThrow();
    for (const name of ["offline", "custom:http://127.0.0.1:1/v1", "wasm:llm", "remote:eliza"]) {
      expect(() => parseConfig(`default_provider = "${name}"\n`)).not.toThrow();
    }
    expect(refusal(`default_provider = "custom:ftp://x"\n`)).toContain("not an http(s) URL");
  });

  test("a provider table with no base_url that is no preset is refused", () => {
    expect(refusal(`default_provider = "mine"\n[providers.mine]\nmodels = ["m"]\n`)).toContain("[providers.mine] has no base_url");
  });

  test("a model route, a fallback or a hint naming nothing is refused where it is written", () => {
    const route = refusal(`[[model_routes]]\nhint = "fast"\nprovider = "nowhere"\nmodel = "m"\n`);
    expect(route).toContain('/w/config.toml:3: "model_routes.0.provider": "nowhere"');
    expect(refusal(`[reliability]\nfallback_providers = ["offline", "gone"]\n`)).toContain('"reliability.fallback_providers.1": "gone"');
    expect(refusal(`default_model = "hint:fast"\n`)).toContain('no [[model_routes]] entry with hint "fast"');
  });
});
