import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { PAIRING_CODE_LENGTH, PAIRING_CODE_MAX_WRONG, PAIRING_LOCKOUT_MS, PAIRING_MAX_FAILURES } from "../limits.ts";
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
          `The gateway prints a ${PAIRING_CODE_LENGTH}-character code at start when no token exists; ` +
          "`prx gateway pair-code` prints a new one at any time. The code works once. " +
          `${PAIRING_MAX_FAILURES} wrong codes from one client lock it out for ${PAIRING_LOCKOUT_MS / 60_000} minutes; ` +
          `after ${PAIRING_CODE_MAX_WRONG} wrong guesses from any clients the next wrong one burns the code (403).`,
        tags: ["auth"],
        responses: { 200: PairResponseSchema },
        errors: [401, 403, 409, 429],
      }),
    },
  );
}
