import type { AgentHost } from "../agent/index.ts";
import type { GatewayConfig } from "../config/schema.ts";
import { errorMessage } from "../core/errors.ts";
import type { TokenStore } from "../storage/types.ts";
import { lineAccessLog, type AccessLog } from "./access-log.ts";
import { AuthService } from "./auth/service.ts";
import { assertBindable, cannotListen, listeningLine, urlOf } from "./bind.ts";
import { buildContext, type GatewayContext } from "./context.ts";
import { guardedFetch } from "./front/index.ts";
import { jsonResponse } from "./json-response.ts";
import { BUN_MAX_REQUEST_BODY_BYTES, GATEWAY_IDLE_TIMEOUT_S } from "./limits.ts";
import { providerReadiness, providerWarning } from "./provider-check.ts";
import type { Clock, GatewayDeps, GatewayHost, GatewayMount, GatewayShared } from "./types.ts";

export interface StartGatewayOptions {
  host: GatewayHost | AgentHost;
  /** Defaults to host.config.gateway. */
  config?: GatewayConfig;
  port?: number;
  hostname?: string;
  version?: string;
  clock?: Clock;
  /** Where the listening line and the pairing code go (default stdout). */
  print?: (line: string) => void;
  /** Install SIGINT/SIGTERM handlers that shut down gracefully (default true). */
  handleSignals?: boolean;
  /** Route groups beyond the built-in ones, loaded with the app (after listening). */
  mounts?: () => GatewayMount[] | Promise<GatewayMount[]>;
  checks?: GatewayDeps["checks"];
  /** One line per request; default: printed to stderr (buffered), whatever PRX_LOG says unless "silent". */
  accessLog?: AccessLog;
  /** Rate limits and pairing lockouts shared by replicas (Redis, `[bus] backend = "redis"`); default: this process's own. */
  shared?: GatewayShared;
  /** What answers requests before the app is built; the first request it leaves builds the app. Default: none, the app is built at start. */
  beforeApp?: BeforeApp;
  /** A control token for this run (presence.ts), accepted besides the stored tokens. */
  controlToken?: string;
  /** Routes answered beside the app, before it is built and after (channel-webhook.ts); each leaves other requests to the app. */
  front?: FrontRoute[];
}

type Fetch = (request: Request, server: Bun.Server<unknown>) => Response | Promise<Response>;

/**
 * A handler for the requests that arrive before the app is built (src/boot/health-before-app.ts): its answer, or null
 * to leave the request to the app, which it builds.
 */
export type BeforeApp = (context: GatewayContext) => (request: Request, server: Bun.Server<unknown>) => Promise<Response> | null;

/**
 * A route answered beside the app, whether it is built or not: its answer, or null to leave the request to the app.
 * It goes through the connection caps (front/guard.ts) and does itself what the app's middleware would do for it.
 */
export type FrontRoute = BeforeApp;

export interface GatewayServer {
  url: string;
  hostname: string;
  port: number;
  context: GatewayContext;
  /** The pairing code printed at start, when pairing was opened. */
  pairingCode: string | null;
  /** Stop accepting, let in-flight turns finish (up to shutdown_grace_ms), then close. Idempotent. */
  stop(): Promise<void>;
  /** Resolves once the gateway has shut down (by stop() or a signal). */
  closed: Promise<void>;
}

/** At a start with tokens present no pairing code is printed: say how to get a token instead. */
export function pairingClosedLine(tokens: number): string {
  const count = tokens === 1 ? "1 token exists" : `${tokens} tokens exist`;
  return (
    `prx gateway: pairing is closed (${count}); to get a token on this machine run \`prx gateway token create\` ` +
    "(it works while the gateway runs; `prx gateway token list` shows the others)"
  );
}

function listen(hostname: string, port: number, fetch: Fetch): Bun.Server<unknown> {
  try {
    return Bun.serve({
      hostname,
      port,
      idleTimeout: GATEWAY_IDLE_TIMEOUT_S,
      maxRequestBodySize: BUN_MAX_REQUEST_BODY_BYTES,
      // a second gateway on the same port must fail to start, not share the port
      reusePort: false,
      development: false,
      fetch,
    });
  } catch (cause) {
    throw cannotListen(hostname, port, cause);
  }
}

/**
 * Build the context, the app and listen. With `beforeApp` (a kept start-up trick: src/boot/tricks.ts,
 * "health-before-app") the app's modules are loaded by the first request it does not answer, and one that fails to
 * build answers 500 naming why (the next request tries again).
 */
export async function startGateway(options: StartGatewayOptions): Promise<GatewayServer> {
  const host = options.host;
  const config = options.config ?? host.config.gateway;
  const hostname = options.hostname ?? config.host;
  const port = options.port ?? config.port;
  // console.log: a closed stdout is ignored, and process.stdout (Node streams, milliseconds to build) stays unbuilt
  const print = options.print ?? ((line: string) => console.log(line));
  assertBindable(hostname, config);
  const now = options.clock ?? Date.now;
  const gatewayHost = options.config ? { ...pick(host), config: { ...host.config, gateway: options.config } } : host;
  // pairing follows a config reload: the host's configuration is read at each request
  const auth = new AuthService<TokenStore>({
    tokens: host.storage.tokens,
    // the store is made (its module loaded) with the first pairing code, not at start
    pairingCodes: {
      open: (codeSha256, expiresAt) => host.storage.gatewayPairing.open(codeSha256, expiresAt),
      guess: (codeSha256, maxWrong) => host.storage.gatewayPairing.guess(codeSha256, maxWrong),
    },
    ...(options.shared?.pairingLockout ? { pairingLockout: options.shared.pairingLockout } : {}),
    required: () => gatewayHost.config.gateway.require_pairing,
    pairingCodeTtlMs: () => gatewayHost.config.gateway.pairing_code_ttl_s * 1000,
    now,
    ...(options.controlToken ? { controlToken: options.controlToken } : {}),
  });
  const context = buildContext({
    host: gatewayHost,
    auth,
    version: options.version ?? "0.0.0",
    startedAt: now(),
    clock: now,
    checks: options.checks,
    accessLog: options.accessLog ?? lineAccessLog(),
    ...(options.shared ? { shared: options.shared } : {}),
  });

  let server!: Bun.Server<unknown>;
  const served = servedApp(context, options, () => server);
  server = listen(hostname, port, guardedFetch(served.fetch));
  if (!options.beforeApp) {
    try {
      await served.build();
    } catch (error) {
      await server.stop(true);
      throw error;
    }
  }
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping: Promise<void> | undefined;
  const onSignal = (signal: string) => {
    if (stopping) {
      // A second signal while draining: stop waiting for turns.
      process.stderr.write(`prx gateway: ${signal} again; exiting without waiting for running turns\n`);
      process.exit(130);
    }
    context.logger.info(`received ${signal}; shutting down`);
    void stop();
  };
  const sigint = () => onSignal("SIGINT");
  const sigterm = () => onSignal("SIGTERM");
  // before the lines below: whoever waits for them may signal at once
  if (options.handleSignals !== false) {
    process.on("SIGINT", sigint);
    process.on("SIGTERM", sigterm);
  }

  print(listeningLine(hostname, server));
  const url = urlOf(hostname, server);
  const pairing = await auth.openPairingIfUnpaired();
  if (pairing) {
    print(
      `prx gateway pairing code: ${pairing.code} (valid ${config.pairing_code_ttl_s} s; POST /pair with header ` +
        "X-Pairing-Code; `prx gateway pair-code` prints a new one)",
    );
  } else if (config.require_pairing) {
    print(pairingClosedLine(await auth.tokens.activeCount()));
  }
  const warning = providerWarning(providerReadiness(context.host));
  if (warning) print(`prx gateway: ${warning}`);

  function stop(): Promise<void> {
    stopping ??= (async () => {
      const requests = server.stop(false);
      const graceMs = context.config.shutdown_grace_ms;
      const drained = await context.turns.drain(graceMs);
      if (!drained) context.logger.warn(`shutdown: turns still running after ${graceMs} ms; closing anyway`);
      // Let the last responses flush before connections are cut.
      await Promise.race([requests, Bun.sleep(drained ? 250 : 0)]);
      await server.stop(true);
      process.off("SIGINT", sigint);
      process.off("SIGTERM", sigterm);
      resolveClosed();
    })();
    return stopping;
  }

  return { url, hostname, port: server.port ?? port, context, pairingCode: pairing?.code ?? null, stop, closed };
}

/**
 * What the server serves with: the app (Elysia and every route group), built by `build()` or by the first request
 * that `beforeApp` leaves, once (a build that fails answers 500 naming why and is tried again by the next request);
 * from then on every request goes to the app.
 */
function servedApp(
  context: GatewayContext,
  options: Pick<StartGatewayOptions, "mounts" | "beforeApp" | "front">,
  server: () => Bun.Server<unknown>,
): { fetch: Fetch; build: () => Promise<Fetch> } {
  let built: Promise<Fetch> | undefined;
  const build = (): Promise<Fetch> =>
    (built ??= (async () => {
      const { gatewayRoutes } = await import("./app.ts");
      const { app } = gatewayRoutes(context, await options.mounts?.(), server);
      const fetch: Fetch = (request) => app.fetch(request);
      serve = fetch;
      return fetch;
    })().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
  const viaApp: Fetch = async (request, srv) => {
    let fetch: Fetch;
    try {
      fetch = await build();
    } catch (error) {
      const message = `the gateway's routes failed to build: ${errorMessage(error)}`;
      context.logger.error(message);
      return jsonResponse({ error: { code: "INTERNAL", message, hint: "see the gateway's log; the next request tries again" } }, 500);
    }
    return fetch(request, srv);
  };
  const beforeApp = options.beforeApp?.(context);
  let serve: Fetch = beforeApp ? (request, srv) => beforeApp(request, srv) ?? viaApp(request, srv) : viaApp;
  const front = (options.front ?? []).map((route) => route(context));
  if (front.length === 0) return { fetch: (request, srv) => serve(request, srv), build };
  return {
    fetch: (request, srv) => {
      for (const route of front) {
        const answered = route(request, srv);
        if (answered) return answered;
      }
      return serve(request, srv);
    },
    build,
  };
}

function pick(host: GatewayHost): GatewayHost {
  return {
    workspace: host.workspace,
    config: host.config,
    get agents() {
      return host.agents;
    },
    storage: host.storage,
    providers: host.providers,
    memory: host.memory,
    tools: host.tools,
    sessions: host.sessions,
    runTurn: (input, plan) => host.runTurn(input, plan),
    resolveModelChoice: (opts) => host.resolveModelChoice(opts),
    deleteSession: (id) => host.deleteSession(id),
    compactSession: (id, choice) => host.compactSession(id, choice),
    usage: host.usage,
    ...(host.tracer ? { tracer: host.tracer } : {}),
  };
}
