import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { PluginServices } from "../../plugins/runtime/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "../../plugins/remote/limits.ts";
import { jsonParser, readLimited } from "../body.ts";
import type { GatewayElysia } from "../elysia.ts";
import { routeSchema } from "../route-schema.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import { PluginInfoSchema, PluginListResponseSchema, PluginReloadResponseSchema } from "../../plugins/api.ts";
import { ProbeResponseSchema } from "../../plugins/probes/index.ts";
import type { PluginHostHandle } from "../plugin-health.ts";
import { authorizationOf } from "../middleware/bearer-auth.ts";
import type { GatewayContext, GatewayMount } from "../types.ts";
import { hooksRoutes } from "./hooks.ts";
import { pluginLiveSections, pluginRuntimeRoutes } from "./plugin-runtime.ts";

/** Largest probe request body (a middleware_test envelope or provider_chat messages). */
export const PROBE_MAX_BODY_BYTES = 1024 * 1024;

const ProbeBodySchema = z.looseObject({ action: z.string().describe("status, reload, middleware_test, cron_run, provider_chat or storage") });
export const ProbeBody = routeSchema(ProbeBodySchema);

/**
 * The plugin subsystem's modules load on the first request that needs them, not with the gateway: the gateway
 * starts its plugin runtime after it listens.
 */
interface PluginModules {
  api: typeof import("../../plugins/api.ts");
  probes: typeof import("../../plugins/probes/index.ts");
}
let modules: PluginModules | undefined;
let loadingModules: Promise<PluginModules> | undefined;
function pluginModules(): Promise<PluginModules> {
  if (modules) return Promise.resolve(modules);
  return (loadingModules ??= Promise.all([import("../../plugins/api.ts"), import("../../plugins/probes/index.ts")]).then(
    ([api, probes]) => (modules = { api, probes }),
  ));
}

/** `?force=true` / `?all=true` of the reload routes (anything else is a 400 naming the parameter). */
function reloadOptions(api: PluginModules["api"], request: Request, all: boolean): { force: boolean; all: boolean } {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = api.ReloadQuerySchema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PrxError("BAD_REQUEST", `invalid reload query: ${issue?.path.join(".")}: ${issue?.message}`, {
      status: 400,
      hint: "use ?force=true and/or ?all=true",
    });
  }
  return { force: parsed.data.force === "true", all: all || parsed.data.all === "true" };
}

/**
 * `/api/plugins*` for the gateway's `mounts`: list, info, reload and probes of the workspace runtime.
 * `services` is asked per request (the plugin services of the gateway's host).
 */
export function pluginRoutes(services: () => PluginServices | Promise<PluginServices>): GatewayMount {
  const runtime = async () => (await services()).runtime;
  return (app: GatewayElysia, gw) => {
    // the response schemas of these routes live in the plugin modules: the document waits for them
    gw.beforeDocument.push(pluginModules);
    pluginRuntimeRoutes(app, async () => services());
    app
      .get("/api/plugins", async () => jsonResponse((await pluginModules()).api.listPlugins(await runtime())), {
        detail: doc({
          summary: "Every plugin of the workspace: status, capabilities, permissions and per-adapter counters",
          tags: ["plugins"],
          responses: { 200: PluginListResponseSchema },
        }),
      })
      .get(
        "/api/plugins/:name",
        async ({ params }) => jsonResponse((await pluginModules()).api.pluginInfo(await runtime(), params.name)),
        {
          detail: doc({
            summary: "One plugin",
            tags: ["plugins"],
            responses: { 200: PluginInfoSchema },
            errors: [404],
          }),
        },
      )
      .post(
        "/api/plugins/reload",
        async ({ request }) => {
          const { api } = await pluginModules();
          return jsonResponse(await api.reloadPlugin(await runtime(), undefined, reloadOptions(api, request, true)));
        },
        {
          detail: doc({
            summary: "Rebuild every plugin into a new generation; refused (409) if an active plugin would fail, unless ?force=true",
            tags: ["plugins"],
            responses: { 200: PluginReloadResponseSchema },
            errors: [400, 409],
          }),
        },
      )
      .post(
        "/api/plugins/:name/reload",
        async ({ params, request }) => {
          const { api } = await pluginModules();
          return jsonResponse(await api.reloadPlugin(await runtime(), params.name, reloadOptions(api, request, false)));
        },
        {
          detail: doc({
            summary:
              "Rebuild the plugin (and the plugins whose inputs changed; ?all=true: every plugin), carry the others over, " +
              "swap when it loads; the old generation keeps serving otherwise (?force=true publishes anyway)",
            tags: ["plugins"],
            responses: { 200: PluginReloadResponseSchema },
            errors: [400, 404, 409],
          }),
        },
      )
      .post(
        "/api/plugins/:name/probe",
        async ({ params, body }) => {
          if (body.action === "list")
            throw new PrxError("BAD_REQUEST", 'action "list" is not scoped to a plugin; use GET /api/plugins', {
              status: 400,
            });
          const { runProbe, parseProbeRequest } = (await pluginModules()).probes;
          return jsonResponse(await runProbe(await services(), parseProbeRequest(body, params.name)));
        },
        {
          body: ProbeBody,
          parse: jsonParser(PROBE_MAX_BODY_BYTES),
          detail: doc({
            summary:
              "Probe the plugin on the live generation: status, reload, middleware_test, cron_run, provider_chat, storage",
            tags: ["plugins"],
            responses: { 200: ProbeResponseSchema },
            // 409: the capability's plugin failed to load (or is disabled); the message carries its load error
            errors: [400, 404, 409, 413, 415],
          }),
        },
      );
  };
}

const BODYLESS = new Set(["GET", "HEAD", "DELETE", "OPTIONS"]);

/**
 * `/plugins/<name>/...` for the routes remote plugins announce. A route the plugin declared `public: true` answers
 * without a token; every other one is behind the gateway's bearer token, checked before its body is read. The body
 * (capped at the remote protocol's message size) is read before the current generation is looked up, so the lookup
 * and the in-flight count happen in the same tick and a reload never releases the worker mid-call.
 */
export function remotePluginRoutes(services: () => PluginServices | Promise<PluginServices>): GatewayMount {
  const lookup = async (plugin: string) => {
    const remote = (await services()).remotes()?.remote(plugin);
    if (!remote) {
      throw new PrxError("NOT_FOUND", `no loaded remote plugin named "${plugin}" serves routes`, {
        status: 404,
        hint: "remote plugins mount their announced routes under /plugins/<name>/; see GET /api/plugins",
      });
    }
    return remote;
  };
  const serve = async (request: Request, gw: GatewayContext): Promise<Response> => {
    const [, , name = "", ...rest] = new URL(request.url).pathname.split("/");
    const plugin = decodeURIComponent(name);
    const path = `/${rest.join("/")}`;
    try {
      await gw.auth.authenticate(authorizationOf(request.headers));
    } catch (error) {
      if (!(await lookup(plugin)).publicRoute(request.method, path)) throw error;
    }
    let forwarded = request;
    if (!BODYLESS.has(request.method) && request.body) {
      const bytes = await readLimited(request, REMOTE_MAX_MESSAGE_BYTES);
      forwarded = new Request(request.url, { method: request.method, headers: request.headers, body: bytes, signal: request.signal });
    }
    return (await lookup(plugin)).route(request.method, path, forwarded);
  };
  const detail = doc({
    summary: "A route announced by a remote plugin (method and path as the plugin declares them; public ones need no token)",
    tags: ["plugins"],
    responses: { 200: { description: "what the plugin's route handler answers" } },
    errors: [401, 404, 413, 502],
  });
  return (app: GatewayElysia, gw: GatewayContext) =>
    app
      .all("/plugins/:name", ({ request }) => serve(request, gw), { detail, auth: "in-handler" })
      .all("/plugins/:name/*", ({ request }) => serve(request, gw), { detail, auth: "in-handler" });
}

function notOpen(workspaceRoot: string): PrxError {
  return new PrxError("ABORTED", `the plugin runtime of ${workspaceRoot} is not open in this host`, {
    status: 503,
    hint: "the host opens it with its plugin extensions; retry once the gateway has started",
  });
}

/** The host's plugin services, waiting for a deferred load; 503 when the host has none. */
function servicesOf(host: PluginHostHandle): () => Promise<PluginServices> {
  const found = (): PluginServices => {
    if (!host.plugins) throw notOpen(host.workspace.root);
    return host.plugins;
  };
  return async () => {
    if (host.extensions.state !== "ready") await host.loadExtensions();
    return found();
  };
}

/**
 * The plugin and hooks route groups for a gateway whose host runs in this process (what `prx gateway` passes as
 * `mounts`), on the host's plugin services; a request made while its plugins still load waits for them.
 */
export function pluginGatewayMounts(host: PluginHostHandle): GatewayMount[] {
  const services = servicesOf(host);
  const live: GatewayMount = (_app, gw) =>
    pluginLiveSections(
      gw,
      () => (host.extensions.state === "ready" ? (host.plugins ?? null) : null),
      async (ready) => (await pluginModules()).api.listPlugins(ready.runtime),
      () => host.extensions.state,
    );
  return [
    live,
    pluginRoutes(services),
    hooksRoutes(async () => (await services()).hooks),
    remotePluginRoutes(services),
  ];
}
