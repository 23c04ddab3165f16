import { z } from "zod";
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
      .array(z.object({ key: z.string(), env: z.string(), set: z.boolean() }))
      .describe("every setting naming an environment variable that holds a secret, and whether it is set"),
    validation: z
      .object({ ok: z.boolean(), error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).nullable() })
      .describe("config.toml as it is on disk now, validated as a reload or the next start would"),
  })
  .describe("the effective configuration");

/** Names of settings that hold the name of an environment variable with a secret. */
const SECRET_ENV_KEY = /_env$/;

/** The config with literal values that may be secrets hidden, and the list of secret-holding variables. */
export function redactConfig(config: Config): { config: Record<string, unknown>; secrets: Array<{ key: string; env: string; set: boolean }> } {
  const secrets: Array<{ key: string; env: string; set: boolean }> = [];
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
        secrets.push({ key: here.join("."), env: inner, set: Boolean(process.env[inner]) });
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
      try {
        // the TOML parser and the config schema load with the first call, not with the gateway
        found = (await import("../../config/loader.ts")).loadConfig(path).path;
        validation = { ok: true, error: null };
      } catch (thrown) {
        const error = toPrxError(thrown);
        found = path;
        validation = { ok: false, error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
      }
      return jsonResponse({ path: found, ...redactConfig(gw.host.config), validation });
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
