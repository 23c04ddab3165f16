import { PrxError, toPrxError } from "../core/errors.ts";
import { settingNow, type Setting } from "../core/setting.ts";
import { readLimited } from "./body.ts";
import type { GatewayContext } from "./context.ts";
import { pathOf } from "./front/index.ts";
import { requestIdOf } from "./request-id.ts";
import type { FrontRoute } from "./server.ts";

/** The route of a channel's inbound platform requests, as the metrics and the API reference name it. */
export const CHANNEL_WEBHOOK_ROUTE = "/channels/:name/webhook";
const CHANNEL_WEBHOOK_PATH = /^\/channels\/([^/]+)\/webhook$/;

/** A request as the channel process receives it over IPC, and its answer. */
export interface ChannelForward {
  forward(name: string, request: { method: string; query?: string; headers: Record<string, string>; body: string }): Promise<{ status: number; headers: Record<string, string>; body: string }>;
}

const UTF8 = new TextDecoder();

/**
 * A platform's request to /channels/<name>/webhook, read within the body limit and handed to the channel's process,
 * which checks the platform's signature and answers (the answer goes back as it is).
 */
export async function forwardToChannel(api: ChannelForward, name: string, request: Request, maxBodyBytes: number): Promise<Response> {
  const body = UTF8.decode(await readLimited(request, maxBodyBytes));
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => (headers[key] = value));
  const url = request.url;
  const q = url.indexOf("?", url.indexOf("//") + 2);
  const query = q < 0 || q === url.length - 1 ? "" : url.slice(q);
  const answer = await api.forward(name, { method: request.method, query, headers, body });
  return new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json; charset=utf-8", ...answer.headers } });
}

/**
 * /channels/<name>/webhook answered beside the app (public, as its route in routes/channels.ts, which documents it):
 * a platform's request goes through the connection caps (front/guard.ts), the client's rate limit, the body limit and
 * the access log and metrics, as through the app's middleware, and straight to the channel's process, without
 * Elysia's pipeline on its path, and without waiting for the app to be built.
 */
export function channelWebhookFront(api: ChannelForward, maxBodyBytes: Setting<number>): FrontRoute {
  return (gw) => (request, server) => {
    const path = pathOf(request.url);
    const match = path.startsWith("/channels/") ? CHANNEL_WEBHOOK_PATH.exec(path) : null;
    if (!match) return null;
    return answer(gw, api, settingNow(maxBodyBytes), request, server, path, decodeURIComponent(match[1]!));
  };
}

async function answer(gw: GatewayContext, api: ChannelForward, maxBodyBytes: number, request: Request, server: Bun.Server<unknown>, path: string, name: string): Promise<Response> {
  const start = performance.now();
  const id = requestIdOf(request);
  const client = gw.clientAddress(request, server);
  let response: Response;
  try {
    const decision = await gw.clientLimiter.take(client);
    if (!decision.ok) {
      throw new PrxError("RATE_LIMITED", `rate limit of ${gw.clientLimiter.perMinute} requests per minute exceeded for ${client}`, {
        hint: "slow down or raise gateway.rate_limit_per_minute",
        details: { retryAfterS: decision.retryAfterS },
      });
    }
    response = await forwardToChannel(api, name, request, maxBodyBytes);
  } catch (thrown) {
    const { failureResponse } = await import("./errors.ts");
    response = failureResponse(path, toPrxError(thrown), id, gw.logger);
  }
  response.headers.set("x-request-id", id);
  const ms = performance.now() - start;
  gw.metrics.request(CHANNEL_WEBHOOK_ROUTE, request.method, response.status, ms / 1000);
  gw.accessLog({ method: request.method, path, status: response.status, id, ms: Math.round(ms * 10) / 10, client });
  return response;
}
