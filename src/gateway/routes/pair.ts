import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { PairResponseSchema } from "../schemas.ts";

export function pairRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post(
    "/pair",
    async ({ request, prx }) => {
      const client = prx.client;
      const { token, record } = await gw.auth.pair(client, request.headers.get("x-pairing-code"), `paired from ${client}`);
      gw.logger.info("paired a new client", { client, token: record.id });
      return jsonResponse({ token, id: record.id });
    },
    {
      auth: false,
      detail: doc({
        summary: "Exchange the one-time pairing code (header X-Pairing-Code) for a bearer token",
        description:
          "The gateway prints a 6-digit code at start when no token exists. The code works once; " +
          "5 wrong codes from one client lock it out for 5 minutes.",
        tags: ["auth"],
        responses: { 200: PairResponseSchema },
        errors: [401, 403, 409, 429],
      }),
    },
  );
}
