import type { AnyElysia } from "elysia";
import {
  addHook,
  HOOKS_API_MAX_BODY_BYTES,
  HooksAddRequestSchema,
  HooksReplaceRequestSchema,
  HooksResponseSchema,
  listHooks,
  removeHook,
  replaceHooks,
} from "../../plugins/hooks-api.ts";
import type { HooksManager } from "../../plugins/hooks/manager.ts";
import { readJsonBody } from "../body.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

/** `/api/hooks` for the gateway's `mounts`: read and edit hooks.json through the same validation as a reload. */
export function hooksRoutes(hooks: () => HooksManager | Promise<HooksManager>): GatewayMount {
  const responses = { 200: HooksResponseSchema };
  return (app: AnyElysia) =>
    app
      .get("/api/hooks", async () => jsonResponse(listHooks(await hooks())), {
        detail: doc({ summary: "The hooks.json in force, its hash and counters", tags: ["hooks"], responses }),
      })
      .post(
        "/api/hooks",
        async ({ request }) =>
          jsonResponse(
            addHook(await hooks(), await readJsonBody(request, HooksAddRequestSchema(), HOOKS_API_MAX_BODY_BYTES)),
          ),
        {
          detail: doc({
            summary: "Add one action to an event",
            tags: ["hooks"],
            body: HooksAddRequestSchema,
            responses,
            errors: [400, 409, 413, 415],
          }),
        },
      )
      .put(
        "/api/hooks",
        async ({ request }) =>
          jsonResponse(
            replaceHooks(
              await hooks(),
              await readJsonBody(request, HooksReplaceRequestSchema(), HOOKS_API_MAX_BODY_BYTES),
            ),
          ),
        {
          detail: doc({
            summary: "Replace the whole hooks.json",
            tags: ["hooks"],
            body: HooksReplaceRequestSchema,
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
