import { toMessageWire, toSummaryNoteWire, toSummaryWire } from "../../agent/index.ts";
import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { jsonParser } from "../body.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { SESSION_MESSAGES_MAX, SESSIONS_LIST_MAX } from "../limits.ts";
import { SessionDeletedSchema, SessionDetailSchema } from "../memory-schemas.ts";
import { doc } from "../openapi/doc.ts";
import { userContentOf } from "../openai/convert.ts";
import { requestedModel } from "../openai/models.ts";
import { streamTurn, toTurnReply } from "../reply.ts";
import { routeSchema } from "../route-schema.ts";
import { MessageBodySchema, SessionListSchema, SessionMessagesSchema, SSE_DESCRIPTION, TurnReplySchema } from "../schemas.ts";
import { wantsEventStream } from "../sse.ts";
import { runGatewayTurn } from "../turns.ts";
import { sessionIdFrom, sessionNotFound } from "./session-params.ts";
import { sessionManageRoutes } from "./session-manage.ts";

const LimitQuery = z.coerce.number().int().min(1);
const tags = ["sessions"];

/** `?limit=N`, clamped to `max` (SESSIONS_LIST_MAX, SESSION_MESSAGES_MAX). */
export function limitFrom(request: Request, max: number): number {
  const raw = new URL(request.url).searchParams.get("limit");
  if (raw === null) return max;
  const parsed = LimitQuery.safeParse(raw);
  if (!parsed.success)
    throw new PrxError("BAD_REQUEST", `query parameter limit must be a positive integer, got "${raw.slice(0, 20)}"`);
  return Math.min(parsed.data, max);
}

export const MessageBody = routeSchema(MessageBodySchema);

export function sessionRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/sessions",
    async ({ request }) => {
      const limit = limitFrom(request, SESSIONS_LIST_MAX);
      const query = new URL(request.url).searchParams;
      const q = query.get("q");
      const agent = query.get("agent") ?? undefined;
      const found = q ? await gw.host.sessions.search(q, limit) : await gw.host.sessions.list(limit, agent);
      const kept = q && agent !== undefined ? found.filter((s) => s.agent === agent) : found;
      const sessions = kept.map((s) => ({
        id: s.id,
        title: s.title,
        channel: s.channel,
        agent: s.agent,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
        message_count: s.messageCount,
      }));
      return jsonResponse({ sessions });
    },
    {
      detail: doc({
        summary: "List sessions, newest first (?limit=N; ?q=text keeps those whose title or id contains it; ?agent=ID those of one agent)",
        tags,
        responses: { 200: SessionListSchema },
        errors: [400],
      }),
    },
  );

  app.get(
    "/api/sessions/:id",
    async ({ request, params }) => {
      const id = sessionIdFrom(params.id);
      const summary = await gw.host.sessions.get(id);
      if (!summary) throw sessionNotFound(id);
      const [stored, summaries, usage] = await Promise.all([
        gw.host.sessions.messages(id, limitFrom(request, SESSION_MESSAGES_MAX)),
        gw.host.sessions.summaries(id),
        gw.host.usage.session(id),
      ]);
      return jsonResponse({ session: toSummaryWire(summary), messages: stored.map(toMessageWire), summaries: summaries.map(toSummaryNoteWire), usage });
    },
    {
      detail: doc({
        summary: "A session, its messages, oldest first (?limit=N keeps the newest N), and what it spent in all",
        tags,
        responses: { 200: SessionDetailSchema },
        errors: [400, 404],
      }),
    },
  );

  app.delete(
    "/api/sessions/:id",
    async ({ params }) => jsonResponse(await gw.host.deleteSession(sessionIdFrom(params.id))),
    {
      detail: doc({
        summary: "Delete a session: its messages and its session-scoped memories go with it (after a running turn)",
        tags,
        responses: { 200: SessionDeletedSchema },
        errors: [400, 404],
      }),
    },
  );

  app.get(
    "/api/sessions/:id/messages",
    async ({ request, params }) => {
      const id = sessionIdFrom(params.id);
      if (!(await gw.host.sessions.get(id))) throw sessionNotFound(id);
      const messages = (await gw.host.sessions.messages(id, limitFrom(request, SESSION_MESSAGES_MAX))).map((m) => ({
        seq: m.seq,
        role: m.role,
        content: m.content,
        ...(m.toolCalls ? { tool_calls: m.toolCalls } : {}),
        ...(m.toolCallId ? { tool_call_id: m.toolCallId } : {}),
        ...(m.name ? { name: m.name } : {}),
        ...(m.media ? { media: m.media } : {}),
        ...(m.usage ? { usage: m.usage } : {}),
        created_at: m.createdAt,
      }));
      const summaries = (await gw.host.sessions.summaries(id)).map(toSummaryNoteWire);
      return jsonResponse({ session_id: id, messages, summaries });
    },
    {
      detail: doc({
        summary: "A session's messages, oldest first (?limit=N keeps the newest N)",
        tags,
        responses: { 200: SessionMessagesSchema },
        errors: [400, 404],
      }),
    },
  );

  app.post(
    "/api/sessions/:id/message",
    async ({ request, params, body }) => {
      const id = sessionIdFrom(params.id);
      const model = body.model === undefined ? {} : requestedModel(gw.models, body.model).turn;
      const said = typeof body.message === "string" ? { text: body.message } : userContentOf({ role: "user", content: body.message }, 0);
      if (said.text.trim() === "" && !said.media?.length) throw new PrxError("BAD_REQUEST", "the message is empty", { status: 400 });
      const input = {
        sessionId: id,
        text: said.text,
        channel: "gateway",
        ...(said.media?.length ? { media: said.media } : {}),
        ...model,
        ...(body.agent ? { agent: body.agent } : {}),
      };
      if (wantsEventStream(request)) return streamTurn(gw, input, request.signal);
      const result = await runGatewayTurn(gw, { ...input, signal: request.signal }, { cancellable: true });
      return jsonResponse(toTurnReply(result));
    },
    {
      body: MessageBody,
      parse: jsonParser(() => gw.config.max_body_bytes),
      detail: doc({
        summary: "Send a message to a session (created if new); JSON reply, or SSE with Accept: text/event-stream",
        description: "POST /api/sessions/{id}/cancel stops the turn; the session keeps what was said before it stopped.",
        tags,
        responses: {
          200: {
            description: `the turn's reply as JSON, or with Accept: text/event-stream a ${SSE_DESCRIPTION}`,
            schema: TurnReplySchema,
          },
        },
        errors: [400, 413, 415, 502, 503],
      }),
    },
  );

  sessionManageRoutes(app, gw);
}
