import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { LogLevels } from "../../core/logger.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { LOG_TAIL_MAX_BYTES, LOG_TAIL_MAX_LINES, LogFollower, readLogTail } from "../log-tail.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";
import { sseResponse } from "../sse.ts";
import type { GatewayMount } from "../types.ts";

/** How often a log stream looks for new lines. */
export const LOG_STREAM_INTERVAL_MS = 1000;
/** Log streams one gateway serves at once; one more is a 429. */
export const LOG_STREAMS_MAX = 4;

const LogLineSchema = z.object({
  at: z.string().nullable().describe("ISO time; null for a line that continues the one before (a stack)"),
  level: z.enum(LogLevels),
  scope: z.string().nullable(),
  text: z.string().describe("the whole line as written"),
});
const LogTailSchema = z
  .object({
    path: z.string().describe("the log file"),
    lines: z.array(LogLineSchema).describe(`oldest first; at most ${LOG_TAIL_MAX_LINES}, from the file's last ${LOG_TAIL_MAX_BYTES} bytes`),
  })
  .describe("the newest lines of the gateway's log file");
const LogQuerySchema = z.object({
  level: z.enum(LogLevels).default("trace").describe("lowest level shown"),
  since: z.iso.datetime().optional().describe("only lines written after this time"),
});
const LogQuery = routeSchema(LogQuerySchema);

/** `GET /api/logs` (the newest lines of `logs/prx.log`) and `GET /api/logs/stream` (them, then new ones live), behind auth. */
export function logRoutes(path: string): GatewayMount {
  let open = 0;
  return (app: GatewayElysia) =>
    app
      .get(
        "/api/logs",
        ({ query }) => jsonResponse({ path, lines: readLogTail(path, query.level, query.since ?? null).lines }),
        {
          query: LogQuery,
          detail: doc({
            summary: "The newest lines of the gateway's log file (?level=trace|debug|info|warn|error, ?since=<ISO time>)",
            tags: ["system"],
            responses: { 200: LogTailSchema },
            errors: [400],
          }),
        },
      )
      .get(
        "/api/logs/stream",
        ({ query }) => {
          if (open >= LOG_STREAMS_MAX) {
            throw new PrxError("RATE_LIMITED", `${LOG_STREAMS_MAX} log streams are open already`, {
              hint: "close another console tab showing the logs",
              details: { retryAfterS: LOG_STREAM_INTERVAL_MS / 1000 },
            });
          }
          open++;
          return sseResponse(async (writer, signal) => {
            try {
              const tail = readLogTail(path, query.level, query.since ?? null);
              writer.send("lines", { path, lines: tail.lines });
              const follower = new LogFollower(path, tail.end);
              while (!signal.aborted && !writer.closed) {
                await writer.pause(LOG_STREAM_INTERVAL_MS);
                const lines = follower.next(query.level);
                if (lines.length > 0) writer.send("lines", { path, lines });
              }
            } finally {
              open--;
            }
          });
        },
        {
          query: LogQuery,
          detail: doc({
            summary: "The gateway's log live over SSE: `lines` events, the newest lines first, then each new batch",
            description:
              `An event \`lines\` ({path, lines}) with the tail as GET /api/logs answers it, then one every ${LOG_STREAM_INTERVAL_MS} ms ` +
              `while new lines arrive (at most ${LOG_TAIL_MAX_LINES} each). At most ${LOG_STREAMS_MAX} streams at once (429 past it).`,
            tags: ["system"],
            responses: { 200: { description: "text/event-stream of `lines` events", contentType: "text/event-stream" } },
            errors: [400, 429],
          }),
        },
      );
}
