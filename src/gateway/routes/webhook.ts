import type { AnyElysia } from "elysia";
import { toPrxError } from "../../core/errors.ts";
import { newId, sha256Hex } from "../../core/ids.ts";
import { parseJsonBytes, readLimited, requireJson } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import { errorBody, jsonResponse, statusOf } from "../errors.ts";
import { checkIdempotencyKey } from "../idempotency.ts";
import { IDEMPOTENCY_KEY_MAX_BYTES } from "../limits.ts";
import { doc } from "../openapi/doc.ts";
import { credentialOf } from "../pipeline.ts";
import { toTurnReply } from "../reply.ts";
import { TurnReplySchema, WebhookBodySchema } from "../schemas.ts";
import { runGatewayTurn } from "../turns.ts";

export const IDEMPOTENCY_HEADER = "x-idempotency-key";
export const REPLAY_HEADER = "idempotent-replay";

/**
 * POST /webhook: one turn per call. With X-Idempotency-Key the reply is stored (per credential, tied to the
 * body's SHA-256) and replayed; the same key in progress or with a different body is a 409. Server-side
 * failures (5xx) release the key so the caller can retry.
 */
export function webhookRoutes(app: AnyElysia, gw: GatewayContext): void {
  app.post(
    "/webhook",
    async ({ request }) => {
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      if (key !== null) checkIdempotencyKey(key);
      requireJson(request);
      const bytes = await readLimited(request, gw.config.max_body_bytes);
      const body = parseJsonBytes(bytes, WebhookBodySchema());
      const input = {
        sessionId: body.session_id ?? newId("webhook"),
        text: body.message,
        channel: "webhook",
        signal: request.signal,
      };
      if (key === null) return jsonResponse(toTurnReply(await runGatewayTurn(gw, input)));

      const scope = credentialOf(request).id;
      const store = gw.idempotency();
      const claim = await store.begin(scope, key, sha256Hex(bytes));
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
      detail: doc({
        summary: "Run one agent turn for an external system; optional X-Idempotency-Key",
        description:
          `X-Idempotency-Key (1-${IDEMPOTENCY_KEY_MAX_BYTES} bytes) is scoped to the caller's token and tied to the body: ` +
          `a replay returns the stored reply with header \`${REPLAY_HEADER}: true\`; the same key still in progress, ` +
          "or with a different body, is a 409. Keys expire after gateway.idempotency_ttl_s.",
        tags: ["webhook"],
        body: WebhookBodySchema,
        responses: { 200: TurnReplySchema },
        errors: [400, 409, 413, 415, 502, 503],
      }),
    },
  );
}
