import { toPrxError } from "../../core/errors.ts";
import { newId, sha256Hex } from "../../core/ids.ts";
import { jsonParser } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { errorBody, jsonResponse, statusOf } from "../errors.ts";
import { checkIdempotencyKey } from "../../storage/idempotency-rules.ts";
import { IDEMPOTENCY_KEY_MAX_BYTES } from "../limits.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";
import { toTurnReply } from "../reply.ts";
import { TurnReplySchema, WebhookBodySchema } from "../schemas.ts";
import { runGatewayTurn } from "../turns.ts";

export const IDEMPOTENCY_HEADER = "x-idempotency-key";
export const REPLAY_HEADER = "idempotent-replay";

export const WebhookBody = routeSchema(WebhookBodySchema);

/**
 * POST /webhook: one turn per call. With X-Idempotency-Key the reply is stored (per credential, tied to the
 * body's SHA-256) and replayed; the same key in progress or with a different body is a 409. Server-side
 * failures (5xx) release the key so the caller can retry.
 */
export function webhookRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.post(
    "/webhook",
    async ({ request, body, prx }) => {
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      if (key !== null) checkIdempotencyKey(key);
      const input = {
        sessionId: body.session_id ?? newId("webhook"),
        text: body.message,
        channel: "webhook",
        signal: request.signal,
      };
      if (key === null) return jsonResponse(toTurnReply(await runGatewayTurn(gw, input)));

      const scope = prx.credential.id;
      const store = gw.idempotency();
      // the validated body, serialised again: the same request always hashes the same
      const claim = await store.begin(scope, key, sha256Hex(JSON.stringify(body)));
      if (claim.kind === "replay") {
        return new Response(claim.body, {
          status: claim.status,
          headers: { "content-type": "application/json; charset=utf-8", [REPLAY_HEADER]: "true" },
        });
      }
      let status: number;
      let text: string;
      try {
        text = JSON.stringify(toTurnReply(await runGatewayTurn(gw, input)));
        status = 200;
      } catch (thrown) {
        const error = toPrxError(thrown);
        if (statusOf(error) >= 500) {
          await store.release(scope, key);
          throw error;
        }
        text = JSON.stringify(errorBody(error));
        status = statusOf(error);
      }
      await store.complete(scope, key, status, text);
      return new Response(text, { status, headers: { "content-type": "application/json; charset=utf-8" } });
    },
    {
      body: WebhookBody,
      parse: jsonParser(() => gw.config.max_body_bytes),
      detail: doc({
        summary: "Run one agent turn for an external system; optional X-Idempotency-Key",
        description:
          `X-Idempotency-Key (1-${IDEMPOTENCY_KEY_MAX_BYTES} bytes) is scoped to the caller's token and tied to the body: ` +
          `a replay returns the stored reply with header \`${REPLAY_HEADER}: true\`; the same key still in progress, ` +
          "or with a different body, is a 409. Keys expire after gateway.idempotency_ttl_s.",
        tags: ["webhook"],
        responses: { 200: TurnReplySchema },
        errors: [400, 409, 413, 415, 502, 503],
      }),
    },
  );
}
