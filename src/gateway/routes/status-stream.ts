import { errorMessage, PrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { doc } from "../openapi/doc.ts";
import { sseResponse } from "../sse.ts";
import { readiness } from "../readiness.ts";
import { gatewayStatus } from "./status.ts";

/** A snapshot is sent on connect and then this often. */
export const STATUS_STREAM_INTERVAL_MS = 2000;
/** Status streams one gateway serves at once; one more is a 429. */
export const STATUS_STREAMS_MAX = 8;

/** One snapshot: the gateway's status and readiness, plus each live section mounted route groups registered. */
export async function statusSnapshot(gw: GatewayContext): Promise<Record<string, unknown>> {
  const sections: Record<string, unknown> = {};
  for (const [name, read] of gw.live) {
    try {
      sections[name] = await read();
    } catch (error) {
      sections[name] = { error: errorMessage(error) };
    }
  }
  return { at: new Date(gw.now()).toISOString(), status: await gatewayStatus(gw), health: await readiness(gw), ...sections };
}

/** GET /api/status/stream: live status over SSE, behind the bearer token like every /api route. */
export function statusStreamRoutes(app: GatewayElysia, gw: GatewayContext): void {
  let open = 0;
  app.get(
    "/api/status/stream",
    () => {
      if (open >= STATUS_STREAMS_MAX) {
        throw new PrxError("RATE_LIMITED", `${STATUS_STREAMS_MAX} status streams are open already`, {
          hint: "close another console tab, or poll GET /api/status",
          details: { retryAfterS: STATUS_STREAM_INTERVAL_MS / 1000 },
        });
      }
      open++;
      return sseResponse(async (writer, signal) => {
        try {
          while (!signal.aborted && !writer.closed && !gw.turns.draining) {
            writer.send("status", await statusSnapshot(gw));
            await writer.pause(STATUS_STREAM_INTERVAL_MS);
          }
        } finally {
          open--;
        }
      });
    },
    {
      detail: doc({
        summary: `Live status over SSE: an event \`status\` on connect and every ${STATUS_STREAM_INTERVAL_MS} ms`,
        description:
          "Each `status` event carries `at`, `status` (as GET /api/status), `health` (as GET /health) and, when the " +
          "gateway hosts them, `plugins`, `cron`, `events` and `channels`. " +
          `At most ${STATUS_STREAMS_MAX} streams at once (429 past it).`,
        tags: ["system"],
        responses: { 200: { description: "text/event-stream of `status` events", contentType: "text/event-stream" } },
        errors: [429],
      }),
    },
  );
}
