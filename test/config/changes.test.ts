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

test("every [gateway] key but the listen address is applied live; host, port and allow_public_bind need a restart", () => {
  const before = config({});
  const after = config({
    gateway: {
      host: "0.0.0.0",
      port: 1,
      allow_public_bind: true,
      require_pairing: false,
      pairing_code_ttl_s: 60,
      max_body_bytes: 2048,
      rate_limit_per_minute: 5,
      rate_limit_per_token_per_minute: 6,
      idempotency_ttl_s: 120,
      responses_ttl_days: 2,
      shutdown_grace_ms: 1,
      model_aliases: { x: "y" },
    },
  });
  const changes = configChanges(before, after);
  // every key of the schema was changed above: a key added to [gateway] later is named here too
  expect(changes.changed).toEqual(Object.keys(before.gateway).map((key) => `gateway.${key}`).sort());
  expect(changes.restart).toEqual(["gateway.allow_public_bind", "gateway.host", "gateway.port"]);
});
