import { expect, test } from "bun:test";
import { configChanges } from "../../src/config/changes.ts";
import { ConfigSchema } from "../../src/config/schema.ts";

const config = (raw: Record<string, unknown>) => ConfigSchema.parse(raw);

test("changes are named per key, per named entry, and the restart-only ones apart", () => {
  const before = config({ providers: { a: { base_url: "http://a/v1" } }, channels: { t: { kind: "webhook" } }, mcp: { servers: { fs: { command: "x" } } } });
  const after = config({
    providers: { a: { base_url: "http://a2/v1" }, b: { base_url: "http://b/v1" } },
    channels: {},
    mcp: { servers: {}, serve: { tools: ["memory_store"] } },
    autonomy: { level: "full" },
    gateway: { port: 1, model_aliases: { x: "y" } },
    storage: { schema: "other" },
    bus: { prefix: "p" },
  });
  const changes = configChanges(before, after);
  expect(changes.changed).toEqual([
    "autonomy",
    "bus.prefix",
    "channels.t",
    "gateway.model_aliases",
    "gateway.port",
    "mcp.servers.fs",
    "mcp.serve",
    "providers.a",
    "providers.b",
    "storage.schema",
  ]);
  expect(changes.restart).toEqual(["bus.prefix", "gateway.port", "storage.schema"]);
});

test("the same configuration has no changes", () => {
  expect(configChanges(config({}), config({}))).toEqual({ changed: [], restart: [] });
});
