import type { GatewayConfig } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";

// Where the gateway listens: the checks and lines of startGateway.

export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1";
}

/** A public address needs `gateway.allow_public_bind`. */
export function assertBindable(hostname: string, config: Pick<GatewayConfig, "allow_public_bind">): void {
  if (!isLoopback(hostname) && !config.allow_public_bind) {
    throw new PrxError("FORBIDDEN", `refusing to bind the gateway to ${hostname}: not a loopback address`, {
      hint: "use --host 127.0.0.1, or set gateway.allow_public_bind = true in config.toml (put TLS and pairing in front)",
    });
  }
}

export function cannotListen(hostname: string, port: number, cause: unknown): PrxError {
  return new PrxError("USAGE", `cannot listen on ${hostname}:${port}: ${(cause as Error).message}`, {
    cause,
    hint: "choose another port with --port, or stop the process using it",
  });
}

export function urlOf(hostname: string, server: Bun.Server<unknown>): string {
  const shown = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  return `http://${shown}:${server.port}`;
}

export function listeningLine(hostname: string, server: Bun.Server<unknown>): string {
  return `prx gateway listening on ${urlOf(hostname, server)}`;
}
