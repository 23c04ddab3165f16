import type { AnyElysia } from "elysia";
import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import {
  listPlugins,
  pluginInfo,
  PluginInfoSchema,
  PluginListResponseSchema,
  PluginReloadResponseSchema,
  reloadPlugin,
} from "../../plugins/api.ts";
import type { PluginServices } from "../../plugins/adapters/services.ts";
import { pluginServicesFor } from "../../plugins/host-extensions.ts";
import { parseProbeRequest, ProbeResponseSchema, runProbe } from "../../plugins/probes.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "../../plugins/remote/limits.ts";
import { readJsonBody, readLimited } from "../body.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount, HealthCheck } from "../types.ts";
import { hooksRoutes } from "./hooks.ts";

/** Largest probe request body (a middleware_test envelope or provider_chat messages). */
export const PROBE_MAX_BODY_BYTES = 1024 * 1024;

const ProbeBodySchema = z.looseObject({ action: z.string() });

/**
 * `/api/plugins*` for the gateway's `mounts`: list, info, reload and probes of the workspace runtime.
 * `services` is asked per request (the runtime of the gateway's host, see pluginServicesFor()).
 */
export function pluginRoutes(services: () => PluginServices): GatewayMount {
  const runtime = () => services().runtime;
  return (app: AnyElysia) =>
    app
      .get("/api/plugins", () => jsonResponse(listPlugins(runtime())), {
        detail: doc({
          summary: "Every plugin of the workspace: status, capabilities, permissions and per-adapter counters",
          tags: ["plugins"],
          responses: { 200: () => PluginListResponseSchema },
        }),
      })
      .get("/api/plugins/:name", ({ params }) => jsonResponse(pluginInfo(runtime(), params.name)), {
        detail: doc({
          summary: "One plugin",
          tags: ["plugins"],
          responses: { 200: () => PluginInfoSchema },
          errors: [404],
        }),
      })
      .post(
        "/api/plugins/:name/reload",
        async ({ params }) => jsonResponse(await reloadPlugin(runtime(), params.name)),
        {
          detail: doc({
            summary: "Build a new generation and swap it in when the plugin loads; the old one keeps serving otherwise",
            tags: ["plugins"],
            responses: { 200: () => PluginReloadResponseSchema },
            errors: [400, 404],
          }),
        },
      )
      .post(
        "/api/plugins/:name/probe",
        async ({ params, request }) => {
          const body = await readJsonBody(request, ProbeBodySchema, PROBE_MAX_BODY_BYTES);
          if (body.action === "list")
            throw new PrxError("BAD_REQUEST", 'action "list" is not scoped to a plugin; use GET /api/plugins', {
              status: 400,
            });
          return jsonResponse(await runProbe(services(), parseProbeRequest(body, params.name)));
        },
        {
          detail: doc({
            summary:
              "Probe the plugin on the live generation: status, reload, middleware_test, cron_run, provider_chat, storage",
            tags: ["plugins"],
            body: () => ProbeBodySchema,
            responses: { 200: () => ProbeResponseSchema },
            errors: [400, 404, 413, 415],
          }),
        },
      );
}

const BODYLESS = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);

/**
 * `/plugins/<name>/...` for the routes remote plugins announce, behind the gateway's auth like every non-public
 * route. The body (capped at the remote protocol's message size) is read before the current generation is looked up,
 * so the lookup and the in-flight count happen in the same tick and a reload never releases the worker mid-call.
 */
export function remotePluginRoutes(services: () => PluginServices): GatewayMount {
  const serve = async (request: Request): Promise<Response> => {
    const [, , name = "", ...rest] = new URL(request.url).pathname.split("/");
    let forwarded = request;
    if (!BODYLESS.has(request.method) && request.body) {
      const bytes = await readLimited(request, REMOTE_MAX_MESSAGE_BYTES);
      forwarded = new Request(request.url, { method: request.method, headers: request.headers, body: bytes, signal: request.signal });
    }
    const plugin = decodeURIComponent(name);
    const remote = services().remotes()?.remote(plugin);
    if (!remote) {
      throw new PrxError("NOT_FOUND", `no loaded remote plugin named "${plugin}" serves routes`, {
        status: 404,
        hint: "remote plugins mount their announced routes under /plugins/<name>/; see GET /api/plugins",
      });
    }
    return remote.route(request.method, `/${rest.join("/")}`, forwarded);
  };
  const detail = doc({
    summary: "A route announced by a remote plugin (method and path as the plugin declares them)",
    tags: ["plugins"],
    responses: { 200: { description: "what the plugin's route handler answers" } },
    errors: [404, 413, 502],
  });
  return (app: AnyElysia) =>
    app
      .all("/plugins/:name", ({ request }) => serve(request), { detail })
      .all("/plugins/:name/*", ({ request }) => serve(request), { detail });
}

/**
 * The plugin and hooks route groups for a gateway whose host runs in this process (what the lead passes as
 * `mounts`). Each request resolves the workspace's services; 503 while the runtime is not open.
 */
export function pluginGatewayMounts(workspaceRoot: string): GatewayMount[] {
  const services = (): PluginServices => {
    const found = pluginServicesFor(workspaceRoot);
    if (!found) {
      throw new PrxError("ABORTED", `the plugin runtime of ${workspaceRoot} is not open in this process`, {
        status: 503,
        hint: "the gateway opens it with its agent host (openHost); retry once the gateway has started",
      });
    }
    return found;
  };
  return [pluginRoutes(services), hooksRoutes(() => services().hooks), remotePluginRoutes(services)];
}

/**
 * /health readiness of the plugin runtime: ready once its first generation is published. A plugin in error is
 * reported in the detail but does not make the gateway unready (one plugin's failure never blocks the others).
 */
export function pluginHealthCheck(workspaceRoot: string): () => HealthCheck {
  return () => {
    const runtime = pluginServicesFor(workspaceRoot)?.runtime;
    if (!runtime?.started) return { ok: false, detail: "plugin runtime not started" };
    const generation = runtime.current();
    const failed = generation.plugins.filter((p) => p.state === "error").length;
    return { ok: true, detail: `generation ${generation.number}: ${generation.plugins.length - failed} loaded, ${failed} in error` };
  };
}
