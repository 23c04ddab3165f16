import type { Config } from "../config/schema.ts";
import type { Storage } from "../storage/types.ts";
import { errorMessage } from "../core/errors.ts";
import { createProviderResolver, isExternalProviderName, resolveModelChoice } from "../providers/index.ts";
import type { AccessEntry } from "./access-log.ts";
import { jsonResponse } from "./json-response.ts";
import type { ServeHandlers } from "./on-demand.ts";
import { answerHealth, databaseCheck, healthOf, providersCheck } from "./readiness.ts";
import type { Health } from "./schemas.ts";
import type { HealthCheck } from "./types.ts";

/**
 * The gateway listens before its agent host and route table are built (they take most of its start): /health
 * answers from the database and the provider configuration, with the gateway reported as starting, and every other
 * request waits for the full gateway, which then answers it. See README, Performance.
 */
export interface EarlyListener {
  server: Bun.Server<unknown>;
  /** Serve with the full gateway from now on: Bun.serve's handlers are swapped, and the requests that waited go to `fetch`. */
  serve(handlers: ServeHandlers): void;
  /** The start failed: requests that waited are answered 503 naming why, and the listener closes. */
  fail(error: unknown): Promise<void>;
  /**
   * Where the /health requests answered early go (the full gateway's access log and metrics): those answered so far
   * at once, later ones (a request still being answered when the full gateway took over) as they finish.
   */
  report(to: (entry: AccessEntry) => void): void;
  /** Resolves when a request needs the full gateway (anything but /health), or after `delayMs`, whichever is first. */
  needed(delayMs: number): Promise<void>;
}

export interface EarlyListenOptions {
  hostname: string;
  port: number;
  idleTimeout: number;
  maxRequestBodySize: number;
  /** The workspace's stores: their SQLite file answers the early /health's database check. */
  storage: Pick<Storage, "ping">;
  config: Config;
  env?: Record<string, string | undefined>;
  configPath: string | null;
  /**
   * Answer /health before the full gateway (default true). A replica whose store or bus is remote (PostgreSQL,
   * Redis) leaves it to the full gateway, which checks them: the local database says nothing of theirs.
   */
  answerHealth?: boolean;
}

type Fetch = (request: Request) => Response | Promise<Response>;

export function listenEarly(options: EarlyListenOptions): EarlyListener {
  let settle!: (fetch: Fetch) => void;
  const full = new Promise<Fetch>((resolve) => (settle = resolve));
  // the configuration does not change while the gateway starts: checked once, on the first /health
  let providers: HealthCheck | undefined;
  const answered: AccessEntry[] = [];
  let reportTo: ((entry: AccessEntry) => void) | undefined;
  let wanted!: () => void;
  const needed = new Promise<void>((resolve) => (wanted = resolve));
  const server = Bun.serve({
    hostname: options.hostname,
    port: options.port,
    idleTimeout: options.idleTimeout,
    maxRequestBodySize: options.maxRequestBodySize,
    reusePort: false,
    development: false,
    async fetch(request, srv) {
      if (options.answerHealth === false || request.method !== "GET" || new URL(request.url).pathname !== "/health") {
        wanted();
        return (await full)(request);
      }
      const start = performance.now();
      const health = startingHealth(options.storage, (providers ??= configuredProviders(options)));
      const { response, entry } = answerHealth(request, srv.requestIP(request)?.address ?? "unknown", start, health);
      if (reportTo) reportTo(entry);
      else answered.push(entry);
      return response;
    },
  });
  return {
    server,
    serve(handlers) {
      server.reload({ routes: handlers.routes as never, fetch: handlers.fetch });
      settle(handlers.fetch);
    },
    async fail(error) {
      const message = `the gateway failed to start: ${errorMessage(error)}`;
      settle(() => jsonResponse({ error: { code: "INTERNAL", message } }, 503));
      await server.stop(false);
    },
    needed(delayMs) {
      const timer = setTimeout(wanted, delayMs);
      return needed.finally(() => clearTimeout(timer));
    },
    report(to) {
      reportTo = to;
      for (const entry of answered.splice(0)) to(entry);
    },
  };
}

function startingHealth(storage: Pick<Storage, "ping">, providers: HealthCheck): Health {
  return healthOf({
    database: databaseCheck(storage),
    providers,
    gateway: { ok: true, detail: "starting: requests wait until the agent host is open" },
  });
}

/** The default provider's readiness from the configuration (no network), as the full /health reports it. */
function configuredProviders(options: EarlyListenOptions): HealthCheck {
  const choice = resolveModelChoice(options.config, {});
  // a plugin's provider is known once the plugins are loaded
  if (isExternalProviderName(choice.provider)) return { ok: true, detail: `starting: ${choice.provider} comes from a plugin` };
  const providers = createProviderResolver(options.config, {
    env: options.env ?? process.env,
    external: () => undefined,
    configPath: options.configPath,
  });
  return providersCheck({ providers, resolveModelChoice: (opts) => resolveModelChoice(options.config, opts) });
}
