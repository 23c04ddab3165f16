import { describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { buildModelTable } from "../../src/gateway/openai/models.ts";

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("the OpenAI API's model table", () => {
  const config = ConfigSchema.parse({
    default_provider: "a",
    default_model: "a-1",
    providers: {
      a: { base_url: "http://127.0.0.1:1/v1", models: ["a-1", "a-2"] },
      b: { base_url: "http://127.0.0.1:2/v1", models: ["b-1"] },
    },
    model_routes: [{ hint: "fast", provider: "b", model: "b-1" }],
  });

  test("configured models and hints are honoured; anything else is not a model (undefined: the route answers 404)", () => {
    const table = buildModelTable(config, { provider: "a", model: "a-1" });
    expect(table.select("a-1")).toEqual({ reported: "a-1" });
    expect(table.select("a-2")).toEqual({ reported: "a-2", model: "a-2" });
    expect(table.select("b-1")).toEqual({ reported: "b-1", provider: "b", model: "b-1" });
    expect(table.select("hint:fast")).toEqual({ reported: "hint:fast", model: "hint:fast" });
    expect(table.select("fast")).toEqual({ reported: "fast", model: "hint:fast" });
    expect(table.select("gpt-4o")).toBeUndefined();
    expect(table.catalog.map((m) => m.id)).toEqual(["a-1", "a-2", "b-1", "hint:fast"]);
  });

  test("[gateway] model_aliases: an alias answers as its target; a bad alias fails the gateway's start", () => {
    const aliased = ConfigSchema.parse({ ...config, gateway: { model_aliases: { "gpt-4o": "b-1", "gpt-4o-mini": "fast" } } });
    const table = buildModelTable(aliased, { provider: "a", model: "a-1" });
    expect(table.select("gpt-4o")).toEqual({ reported: "b-1", provider: "b", model: "b-1" });
    expect(table.select("gpt-4o-mini")).toEqual({ reported: "fast", model: "hint:fast" });
    expect(table.catalog.slice(-2)).toEqual([
      { id: "gpt-4o", owned_by: "b" },
      { id: "gpt-4o-mini", owned_by: "b" },
    ]);
    const unknown = ConfigSchema.parse({ ...config, gateway: { model_aliases: { "gpt-4o": "nope" } } });
    expect(thrown(() => buildModelTable(unknown, { provider: "a", model: "a-1" }))).toMatchObject({
      code: "CONFIG_INVALID",
      message: '[gateway] model_aliases "gpt-4o" = "nope": "nope" is not a model this gateway serves',
    });
    const shadow = ConfigSchema.parse({ ...config, gateway: { model_aliases: { "a-2": "b-1" } } });
    expect(thrown(() => buildModelTable(shadow, { provider: "a", model: "a-1" })).message).toContain(
      '"a-2" is already a model this gateway serves',
    );
  });

});
