import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { settingNow, type Setting } from "../../core/setting.ts";
import { jsonParser } from "../body.ts";
import { CHANNEL_WEBHOOK_ROUTE, forwardToChannel } from "../channel-webhook.ts";
import type { GatewayElysia } from "../elysia.ts";
import { routeSchema } from "../route-schema.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount, HealthCheck } from "../types.ts";

export const ChannelInfoSchema = z.object({
  name: z.string(),
  kind: z.string(),
  state: z.enum(["starting", "running", "restarting", "crash_loop", "stopped"]),
  pid: z.number().nullable(),
  restarts: z.number(),
  last_inbound: z.string().nullable(),
  last_outbound: z.string().nullable(),
  last_error: z.string().nullable(),
  /** When the last error happened (ISO time). */
  last_error_at: z.string().nullable(),
  detail: z.string(),
  plugin_generation: z.number().nullable(),
  stats: z
    .object({ inbound: z.number(), answered: z.number(), duplicates: z.number(), ignored: z.number(), refused: z.number(), failed: z.number(), rejected: z.number().describe("inbound requests refused for a missing or forged signature") })
    .nullable(),
});
export const PairingInfoSchema = z.object({
  channel: z.string(),
  sender_id: z.string(),
  display: z.string(),
  code: z.string().nullable(),
  state: z.enum(["pending", "approved"]),
  created_at: z.number(),
  approved_at: z.number().nullable(),
  owner: z.boolean().optional().describe("an owner answers tool approvals asked in the channel"),
});
const ApproveBodySchema = z.strictObject({
  code: z.string().min(1).max(32).describe("the code the sender was given"),
  owner: z.boolean().optional().describe("mark the sender an owner: they answer tool approvals asked in the channel"),
});
/** Largest body of a pairing approval (a code of at most 32 characters). */
export const APPROVE_MAX_BODY_BYTES = 1024;
export const ApproveBody = routeSchema(ApproveBodySchema);
const ChannelListSchema = z.object({ channels: z.array(ChannelInfoSchema) });
const PairingListSchema = z.object({ pairings: z.array(PairingInfoSchema) });

export type ChannelInfoWire = z.infer<typeof ChannelInfoSchema>;
export type PairingInfoWire = z.infer<typeof PairingInfoSchema>;

/** What the gateway needs of the channel subsystem (the CLI wires the supervisor and the pairing store in). */
export interface ChannelsApi {
  list(): ChannelInfoWire[];
  restart(name: string): Promise<ChannelInfoWire>;
  /** A raw HTTP request for a channel that receives over HTTP; its process checks the signature and answers. */
  forward(name: string, request: { method: string; query?: string; headers: Record<string, string>; body: string }): Promise<{ status: number; headers: Record<string, string>; body: string }>;
  health(): HealthCheck;
  pairings: {
    list(): PairingInfoWire[] | Promise<PairingInfoWire[]>;
    approve(code: string, owner?: boolean): PairingInfoWire | Promise<PairingInfoWire>;
    revoke(senderId: string, channel?: string): number | Promise<number>;
  };
}

/**
 * /api/channels (liveness, restart, pairing approvals) behind auth, and POST /channels/:name/webhook (public: the
 * channel process verifies the platform's signature; a bad one is 401 and nothing runs).
 */
export function channelRoutes(api: ChannelsApi, maxBodyBytes: Setting<number>): GatewayMount {
  return (app: GatewayElysia, gw) => {
    gw.live.set("channels", () => ({ channels: api.list() }));
    app
      .get("/api/channels", () => jsonResponse({ channels: api.list() }), {
        detail: doc({
          summary: "Channel processes: state, restarts, last inbound/outbound, last error",
          tags: ["channels"],
          responses: { 200: ChannelListSchema },
        }),
      })
      .post("/api/channels/:name/restart", async ({ params }) => jsonResponse(await api.restart(params.name)), {
        detail: doc({ summary: "Restart a channel process", tags: ["channels"], responses: { 200: ChannelInfoSchema }, errors: [404] }),
      })
      .get("/api/channels/pairings", async () => jsonResponse({ pairings: await api.pairings.list() }), {
        detail: doc({ summary: "Pending pairing requests and approved senders", tags: ["channels"], responses: { 200: PairingListSchema } }),
      })
      .post(
        "/api/channels/pairings/approve",
        async ({ body }) => jsonResponse(await api.pairings.approve(body.code, body.owner === true)),
        {
          body: ApproveBody,
          parse: jsonParser(APPROVE_MAX_BODY_BYTES),
          detail: doc({
            summary: "Approve the sender who was given this pairing code",
            tags: ["channels"],
            responses: { 200: PairingInfoSchema },
            errors: [400, 404],
          }),
        },
      )
      .delete(
        "/api/channels/pairings/:sender",
        async ({ params, request }) => {
          const channel = new URL(request.url).searchParams.get("channel") ?? undefined;
          const removed = await api.pairings.revoke(decodeURIComponent(params.sender), channel);
          if (removed === 0) throw new PrxError("NOT_FOUND", `sender ${params.sender} is not paired`, { status: 404 });
          return jsonResponse({ revoked: removed });
        },
        { detail: doc({ summary: "Revoke a sender (?channel=NAME to limit it to one channel)", tags: ["channels"], responses: { 200: { description: "revoked" } }, errors: [404] }) },
      )
      // served beside the app by channel-webhook.ts; here for the API reference and the app alone (app.handle)
      .all(
        CHANNEL_WEBHOOK_ROUTE,
        ({ params, request }) => forwardToChannel(api, params.name, request, settingNow(maxBodyBytes)),
        {
          auth: false,
          detail: doc({
            summary: "Inbound platform requests of a channel (webhook, Slack Events API, Telegram webhook, WhatsApp, Teams, Google Chat, LINE); authenticated by the platform's signature",
            tags: ["channels"],
            responses: { 200: { description: "the channel's answer (the reply, for a synchronous webhook)" } },
            errors: [401, 404, 413, 503],
          }),
        },
      );
  };
}
