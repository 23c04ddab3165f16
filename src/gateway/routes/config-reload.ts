import { z } from "zod";
import type { ConfigReloader, ConfigReloadOutcome } from "../../agent/config-reload.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

/** The answer of POST and GET /api/config/reload (ConfigReloadOutcome); one schema for the route, the CLI and the console. */
export const ConfigReloadSchema = z
  .object({
    ok: z.boolean().describe("false: config.toml was refused and the running configuration stays"),
    generation: z.number().int().describe("the configuration generation serving now (1 at start)"),
    applied: z.array(z.string()).describe('keys applied live ("providers.openai", "autonomy", "channels.telegram"...)'),
    notes: z.array(z.string()).describe("what was started, stopped or restarted to apply them"),
    restart: z.array(z.string()).describe("keys that differ from what the gateway started with and need a restart (listen address, storage, bus)"),
    error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).nullable().describe("why it was refused, with file:line"),
    at: z.string().describe("when it was decided (ISO time)"),
  })
  .describe("the outcome of applying config.toml to the running gateway");

export const LastReloadSchema = z.object({ last: ConfigReloadSchema.nullable().describe("null: no reload since the gateway started") });

/** POST /api/config/reload applies config.toml now (as the file watch does); GET shows the last outcome. Behind auth. */
export function configReloadRoutes(reloader: Pick<ConfigReloader, "reload" | "last">): GatewayMount {
  return (app: GatewayElysia) =>
    app
      .post("/api/config/reload", async () => jsonResponse(await reloader.reload()), {
        detail: doc({
          summary: "Read config.toml, validate it whole and apply it live; a refused file leaves the running configuration as it is",
          tags: ["system"],
          responses: { 200: ConfigReloadSchema },
        }),
      })
      .get("/api/config/reload", () => jsonResponse({ last: reloader.last satisfies ConfigReloadOutcome | null }), {
        detail: doc({
          summary: "The last config reload's outcome (the file watch's, this API's or prx config set's)",
          tags: ["system"],
          responses: { 200: LastReloadSchema },
        }),
      });
}
