import type { AgentHost } from "../../src/agent/index.ts";
import { buildGateway } from "../../src/gateway/app.ts";
import { AuthService } from "../../src/gateway/auth/service.ts";
import type { GatewayElysia } from "../../src/gateway/elysia.ts";
import type { GatewayMount } from "../../src/gateway/types.ts";
import { sqliteStorageOf } from "./host-db.ts";

/**
 * The gateway's app for a host with some route groups mounted, behind the real request pipeline. Auth is off unless
 * `requirePairing` (then `token` is a valid bearer token).
 */
export function gatewayWithMounts(
  host: Pick<AgentHost, "workspace" | "config" | "storage" | "providers" | "memory" | "tools" | "sessions" | "runTurn" | "resolveModelChoice" | "deleteSession" | "compactSession" | "usage" | "agents">,
  mounts: GatewayMount[],
  options: { requirePairing?: boolean } = {},
): { app: GatewayElysia; token: string } {
  const auth = new AuthService({ tokens: sqliteStorageOf(host).tokens, pairingCodes: sqliteStorageOf(host).gatewayPairing, required: options.requirePairing ?? false, pairingCodeTtlMs: 60_000, now: Date.now });
  const token = options.requirePairing ? auth.tokens.create("test").token : "";
  const { app } = buildGateway({ host, auth, version: "test", startedAt: Date.now(), mounts, clientAddress: () => "127.0.0.1" });
  return { app, token };
}
