import { z } from "zod";
import { UsageGroups, UsageReportSchema, usageReport } from "../../agent/index.ts";
import { PrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

const UsageQuerySchema = z.strictObject({
  since: z.string().max(40).optional(),
  group: z.enum(UsageGroups).optional(),
});

/** `GET /api/usage`: tokens and cost from the kept daily totals. */
export function usageRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/usage",
    async ({ request }) => {
      const parsed = UsageQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new PrxError("BAD_REQUEST", `invalid usage query: ${issue?.path.join(".") || issue?.message}: ${issue?.message}`, {
          status: 400,
          hint: `use ?since=YYYY-MM-DD or ?since=7d and ?group=${UsageGroups.join("|")}`,
        });
      }
      const { host } = gw;
      return jsonResponse(await usageReport(host.usage, host.config.budget, { ...parsed.data, now: gw.now() }));
    },
    {
      detail: doc({
        summary: `Tokens and cost per day, session, model or channel (?group=${UsageGroups.join("|")}, default day; ?since=YYYY-MM-DD or 7d, default 30d)`,
        description: "Days are counted in [budget] time_zone. Models whose prices are unknown count tokens but no cost.",
        tags: ["usage"],
        responses: { 200: UsageReportSchema },
        errors: [400],
      }),
    },
  );
}
