import { jsonParser } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { routeSchema } from "../route-schema.ts";
import { SessionCompactionWireSchema, SessionSummaryWireSchema, toSummaryNoteWire } from "../../agent/index.ts";
import { SessionCancelSchema, SessionRenameBodySchema } from "../schemas.ts";
import { sessionIdFrom, sessionNotFound } from "./session-params.ts";

/** Largest body of a rename: a title of SESSION_TITLE_MAX_CHARS characters fits many times over. */
export const SESSION_RENAME_MAX_BODY_BYTES = 4096;

export const SessionRenameBody = routeSchema(SessionRenameBodySchema);
const tags = ["sessions"];

/** Renaming a session, stopping its turn and compacting it: what the console's session list, stop button and /compact use. */
export function sessionManageRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.patch(
    "/api/sessions/:id",
    async ({ params, body }) => {
      const id = sessionIdFrom(params.id);
      const renamed = await gw.host.sessions.rename(id, body.title);
      if (!renamed) throw sessionNotFound(id);
      return jsonResponse({
        id: renamed.id,
        title: renamed.title,
        channel: renamed.channel,
        created_at: renamed.createdAt,
        updated_at: renamed.updatedAt,
        message_count: renamed.messageCount,
      });
    },
    {
      body: SessionRenameBody,
      parse: jsonParser(SESSION_RENAME_MAX_BODY_BYTES),
      detail: doc({
        summary: "Rename a session (its title stays when later turns run)",
        tags,
        responses: { 200: SessionSummaryWireSchema },
        errors: [400, 404, 413, 415],
      }),
    },
  );

  app.post(
    "/api/sessions/:id/cancel",
    ({ params }) => {
      const id = sessionIdFrom(params.id);
      return jsonResponse({ session_id: id, cancelled: gw.turns.cancel(id) });
    },
    {
      detail: doc({
        summary: "Stop the session's running turn (and any queued behind it); 0 when none was running",
        description:
          "The turn ends as if its client had gone away: a streamed reply ends with an `error` event ABORTED, and the " +
          "session keeps what was said before it stopped.",
        tags,
        responses: { 200: SessionCancelSchema },
        errors: [400],
      }),
    },
  );

  app.post(
    "/api/sessions/:id/compact",
    async ({ params }) => {
      const done = await gw.host.compactSession(sessionIdFrom(params.id));
      return jsonResponse({ ...done, summary: done.summary ? toSummaryNoteWire(done.summary) : null });
    },
    {
      detail: doc({
        summary: "Summarise the session's messages so far into its session summary (after a running turn)",
        description:
          "The model a turn would use writes the summary, folding the previous one in; later prompts carry it in place " +
          "of the messages it covers. Nothing is deleted. A compaction that fails leaves the session as it was.",
        tags,
        responses: { 200: SessionCompactionWireSchema },
        errors: [400, 404, 502],
      }),
    },
  );
}
