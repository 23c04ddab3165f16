import {
  addHook,
  HOOKS_API_MAX_BODY_BYTES,
  HooksAddRequestSchema,
  HooksReplaceRequestSchema,
  HooksResponseSchema,
  listHooks,
  removeHook,
  replaceHooks,
} from "../../plugins/hooks/api.ts";
import type { HooksManager } from "../../plugins/hooks/manager.ts";
import { jsonParser } from "../body.ts";
import type { GatewayElysia } from "../elysia.ts";
import { routeSchema } from "../route-schema.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

export const HooksAddBody = routeSchema(HooksAddRequestSchema);
export const HooksReplaceBody = routeSchema(HooksReplaceRequestSchema);

/** `/api/hooks` for the gateway's `mounts`: read and edit hooks.json through the same validation as a reload. */
export function hooksRoutes(hooks: () => HooksManager | Promise<HooksManager>): GatewayMount {
  const responses = { 200: HooksResponseSchema };
  return (app: GatewayElysia) =>
    app
      .get("/api/hooks", async () => jsonResponse(listHooks(await hooks())), {
        detail: doc({ summary: "The hooks.json in force, its hash and counters", tags: ["hooks"], responses }),
      })
      .post(
        "/api/hooks",
        async ({ body }) => jsonResponse(addHook(await hooks(), body)),
        {
          body: HooksAddBody,
          parse: jsonParser(HOOKS_API_MAX_BODY_BYTES),
          detail: doc({
            summary: "Add one action to an event",
            tags: ["hooks"],
            responses,
            errors: [400, 409, 413, 415],
          }),
        },
      )
      .put(
        "/api/hooks",
        async ({ body }) => jsonResponse(replaceHooks(await hooks(), body)),
        {
          body: HooksReplaceBody,
          parse: jsonParser(HOOKS_API_MAX_BODY_BYTES),
          detail: doc({
            summary: "Replace the whole hooks.json",
            tags: ["hooks"],
            responses,
            errors: [400, 409, 413, 415],
          }),
        },
      )
      .delete(
        "/api/hooks",
        async ({ query }) => jsonResponse(removeHook(await hooks(), query as Record<string, string | undefined>)),
        {
          detail: doc({
            summary: "Remove one action (?event=&index=) or every action of an event (?event=)",
            tags: ["hooks"],
            responses,
            errors: [400, 404, 409],
          }),
        },
      );
}
