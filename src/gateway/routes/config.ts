import { z } from "zod";
import type { ConfigOrigin } from "../../config/origins.ts";
import type { Config } from "../../config/schema.ts";
import { toPrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

/** What a literal value that may hold a secret (a provider header, an MCP server's env) is shown as. */
export const HIDDEN_VALUE = "(hidden: literal value in config.toml)";

const ConfigReportSchema = z
  .object({
    path: z.string().nullable().describe("config.toml, or null when the gateway runs on defaults"),
    config: z.record(z.string(), z.unknown()).describe("the effective config (env overrides applied); literal header and env values hidden"),
    secrets: z
      .array(
        z.object({
          key: z.string(),
          env: z.string(),
          set: z.boolean(),
          in_use: z.boolean().describe('false when the setting does not apply (url_env of [storage] on backend = "sqlite")'),
        }),
      )
      .describe("every setting naming an environment variable that holds a secret, whether it is set and whether it applies"),
    origins: z
      .array(z.object({ key: z.string(), origin: z.enum(["file", "env"]), env: z.string().optional() }))
      .describe("every value that is not a default: set in config.toml (file) or by an environment variable (env, which wins)"),
    validation: z
      .object({ ok: z.boolean(), error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).nullable() })
      .describe("config.toml as it is on disk now, validated as a reload or the next start would"),
  })
  .describe("the effective configuration");

/** Names of settings that hold the name of an environment variable with a secret. */
const SECRET_ENV_KEY = /_env$/;

/** Secret settings that apply only with a given backend: anything else is in use whenever it is configured. */
function inUse(config: Config, key: string): boolean {
  if (key === "storage.url_env") return config.storage.backend === "postgres";
  if (key === "bus.url_env") return config.bus.backend === "redis";
  return true;
}

type Secret = { key: string; env: string; set: boolean; in_use: boolean };

/** The config with literal values that may be secrets hidden, and the list of secret-holding variables. */
export function redactConfig(config: Config): { config: Record<string, unknown>; secrets: Secret[] } {
  const secrets: Secret[] = [];
  const walk = (value: unknown, path: string[]): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, String(i)]));
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const here = [...path, key];
      if ((key === "headers" || key === "env") && typeof inner === "object" && inner !== null) {
        out[key] = Object.fromEntries(Object.keys(inner).map((name) => [name, HIDDEN_VALUE]));
      } else if (SECRET_ENV_KEY.test(key) && typeof inner === "string") {
        out[key] = inner;
        secrets.push({ key: here.join("."), env: inner, set: Boolean(process.env[inner]), in_use: inUse(config, here.join(".")) });
      } else out[key] = walk(inner, here);
    }
    return out;
  };
  return { config: walk(config, []) as Record<string, unknown>, secrets };
}

export function configRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/config",
    async () => {
      const path = gw.host.workspace.configPath;
      let validation: { ok: boolean; error: { code: string; message: string; hint?: string } | null };
      let found: string | null = null;
      let origins: ConfigOrigin[] = [];
      try {
        // the TOML parser and the config schema load with the first call, not with the gateway
        found = (await import("../../config/loader.ts")).loadConfig(path).path;
        validation = { ok: true, error: null };
        origins = (await import("../../config/origins.ts")).configOrigins(path, process.env);
      } catch (thrown) {
        const error = toPrxError(thrown);
        found = path;
        validation = { ok: false, error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
      }
      return jsonResponse({ path: found, ...redactConfig(gw.host.config), origins, validation });
    },
    {
      detail: doc({
        summary: "The effective configuration (secrets appear only as the names of their environment variables) and whether config.toml validates now",
        tags: ["system"],
        responses: { 200: ConfigReportSchema },
      }),
    },
  );
}
