import type { AgentHost } from "../agent/index.ts";
import type { GatewayConfig } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { lineAccessLog, type AccessLog } from "./access-log.ts";
import { AuthService, type PairingGateApi } from "./auth/service.ts";
import type { TokenStore } from "../storage/types.ts";
import type { GatewayShared } from "./types.ts";
import { rememberClientAddress } from "./client.ts";
import type { GatewayContext } from "./context.ts";
import { buildGatewayCore, type NativeRoutes } from "./core.ts";
import { lazyElysiaApp } from "./lazy-app.ts";
import { providerReadiness, providerWarning } from "./provider-check.ts";
import type { Clock, GatewayDeps, GatewayHost } from "./types.ts";

/** Bun closes a connection silent for this long; SSE keep-alives (15 s) and most turns fit well inside. */
export const GATEWAY_IDLE_TIMEOUT_S = 255;
/** A full GC this long after start returns start-up garbage to the OS before the gateway idles. */
export const POST_START_GC_DELAY_MS = 1000;
/**
 * Bun's own body cap. It answers a larger declared Content-Length with a bare 413 before our pipeline runs, so it
 * sits above the largest gateway.max_body_bytes the config allows (64 MiB): our JSON 413 naming the limit wins.
 */
export const BUN_MAX_REQUEST_BODY_BYTES = 128 * 1024 * 1024;

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
  mounts?: GatewayDeps["mounts"];
  checks?: GatewayDeps["checks"];
  /** One line per request; default: printed to stderr (buffered), whatever PRX_LOG says unless "silent". */
  accessLog?: AccessLog;
  /** Rate limits and pairing shared by replicas (Redis, `[bus] backend = "redis"`); default: this process's own. */
  shared?: GatewayShared;
}

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

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

export async function startGateway(options: StartGatewayOptions): Promise<GatewayServer> {
  const host = options.host;
  const config = options.config ?? host.config.gateway;
  const hostname = options.hostname ?? config.host;
  const port = options.port ?? config.port;
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"));
  if (!isLoopback(hostname) && !config.allow_public_bind) {
    throw new PrxError("FORBIDDEN", `refusing to bind the gateway to ${hostname}: not a loopback address`, {
      hint: "use --host 127.0.0.1, or set gateway.allow_public_bind = true in config.toml (put TLS and pairing in front)",
    });
  }
  const now = options.clock ?? Date.now;
  const auth = new AuthService<TokenStore, PairingGateApi>({
    db: host.db,
    ...(options.shared?.pairing ? { pairing: options.shared.pairing } : {}),
    ...(host.storage?.backend === "postgres" ? { tokens: host.storage.tokens } : {}),
    required: config.require_pairing,
    pairingCodeTtlMs: config.pairing_code_ttl_s * 1000,
    now,
  });
  const core = buildGatewayCore({
    host: options.config ? { ...pick(host), config: { ...host.config, gateway: config } } : host,
    auth,
    version: options.version ?? "0.0.0",
    startedAt: now(),
    clock: now,
    checks: options.checks,
    accessLog: options.accessLog ?? lineAccessLog(),
    ...(options.shared ? { shared: options.shared } : {}),
  });
  const { context, native } = core;
  const elysia = lazyElysiaApp(core, options.mounts);

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname,
      port,
      idleTimeout: GATEWAY_IDLE_TIMEOUT_S,
      maxRequestBodySize: BUN_MAX_REQUEST_BODY_BYTES,
      routes: nativeRoutes(native),
      fetch(request, srv) {
        rememberClientAddress(request, srv.requestIP(request)?.address);
        return elysia(request);
      },
    });
  } catch (cause) {
    throw new PrxError("USAGE", `cannot listen on ${hostname}:${port}: ${(cause as Error).message}`, {
      cause,
      hint: "choose another port with --port, or stop the process using it",
    });
  }
  const shown = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  const url = `http://${shown}:${server.port}`;
  print(`prx gateway listening on ${url}`);
  const pairing = await auth.openPairingIfUnpaired();
  if (pairing) {
    print(
      `prx gateway pairing code: ${pairing.code} (valid ${config.pairing_code_ttl_s} s; POST /pair with header X-Pairing-Code)`,
    );
  } else if (config.require_pairing) {
    print(pairingClosedLine(await auth.tokens.activeCount()));
  }
  const warning = providerWarning(providerReadiness(context.host));
  if (warning) print(`prx gateway: ${warning}`);

  // Start-up garbage (config parsing, module init) is collected once the gateway is idle, not on the first request.
  setTimeout(() => {
    Bun.gc(true);
    // Bun.shrink (undocumented) returns freed JSC heap pages; measured ~2 MB of idle RSS.
    (Bun as unknown as { shrink?: () => void }).shrink?.();
  }, POST_START_GC_DELAY_MS).unref();

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
  if (options.handleSignals !== false) {
    process.on("SIGINT", sigint);
    process.on("SIGTERM", sigterm);
  }

  function stop(): Promise<void> {
    stopping ??= (async () => {
      const requests = server.stop(false);
      const drained = await context.turns.drain(config.shutdown_grace_ms);
      if (!drained)
        context.logger.warn(`shutdown: turns still running after ${config.shutdown_grace_ms} ms; closing anyway`);
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

type Served = (request: Request, server: Bun.Server<undefined>) => Promise<Response>;

/** The app's native routes for Bun.serve (path -> method -> handler), recording each client address first. */
function nativeRoutes(native: NativeRoutes): Record<string, Record<string, Served>> {
  const routes: Record<string, Record<string, Served>> = {};
  for (const [path, methods] of Object.entries(native)) {
    routes[path] = {};
    for (const [method, handle] of Object.entries(methods)) {
      routes[path][method] = (request, srv) => {
        rememberClientAddress(request, srv.requestIP(request)?.address);
        return handle(request);
      };
    }
  }
  return routes;
}

function pick(host: GatewayHost): GatewayHost {
  return {
    workspace: host.workspace,
    config: host.config,
    db: host.db,
    providers: host.providers,
    memory: host.memory,
    tools: host.tools,
    sessions: host.sessions,
    runTurn: (input) => host.runTurn(input),
    resolveModelChoice: (opts) => host.resolveModelChoice(opts),
    deleteSession: (id) => host.deleteSession(id),
  };
}
