import { z } from "zod";
import type { Config } from "../config/schema.ts";
import { openStorage } from "../storage/index.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { Workspace } from "../core/workspace-paths.ts";
import { readPresence, type GatewayPresence } from "../gateway/presence.ts";

/** How long a command waits for the running gateway's answer. */
export const GATEWAY_CONTROL_TIMEOUT_MS = 10_000;

/** The workspace's running gateway, reached with the control token it wrote to data/gateway.json. */
export interface RunningGateway {
  presence: GatewayPresence;
  /** A JSON request to it; its answer parsed by `schema`, or a PrxError naming what went wrong. */
  request<T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T>;
}

/**
 * `timeout` makes the signal that ends a wait for the gateway's answer (tests pass one their clock fires); default
 * AbortSignal.timeout.
 */
export function runningGateway(
  workspace: Pick<Workspace, "dataDir">,
  timeout: (ms: number) => AbortSignal = (ms) => AbortSignal.timeout(ms),
): RunningGateway | null {
  const presence = readPresence(workspace);
  if (!presence) return null;
  return {
    presence,
    async request(method, path, schema, body) {
      const url = new URL(path, presence.url).href;
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: { authorization: `Bearer ${presence.control_token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: timeout(GATEWAY_CONTROL_TIMEOUT_MS),
        });
      } catch (error) {
        throw new PrxError("GATEWAY_UNREACHABLE", `the running gateway (pid ${presence.pid}, ${presence.url}) did not answer ${method} ${path}: ${errorMessage(error)}`, {
          hint: "is it still starting, or stuck? `prx status` shows it; restart it with `prx gateway`",
        });
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (!response.ok) {
        const message = (json as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 300);
        throw new PrxError("BAD_REQUEST", `the running gateway answered ${method} ${path} with ${response.status}: ${message}`);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        throw new PrxError("GATEWAY_UNREACHABLE", `the running gateway's answer to ${method} ${path} is not what this prx reads`, {
          hint: `it runs prx ${presence.version}; restart it with this version`,
        });
      }
      return parsed.data;
    },
  };
}

/** How a command reaches the workspace's gateway: its address, a token it accepts, and what to do when done. */
export interface GatewayAccess {
  url: string;
  token: string;
  /** A token made for the command was revoked ("" when none was made: the running gateway's control token). */
  release(): Promise<string | null>;
}

/**
 * The workspace's running gateway with its control token; or, with `url` given or no gateway of this workspace
 * running, that address (default: config's [gateway] host and port) with a token made in this workspace's storage
 * (the tokens that gateway checks), revoked by release().
 */
export async function gatewayAccess(workspace: Workspace, config: Config, purpose: string, url?: string): Promise<GatewayAccess> {
  const running = url === undefined ? runningGateway(workspace) : null;
  if (running) return { url: running.presence.url, token: running.presence.control_token, release: async () => null };
  const host = config.gateway.host === "0.0.0.0" || config.gateway.host === "::" ? "127.0.0.1" : config.gateway.host;
  const address = url ?? `http://${host.includes(":") ? `[${host}]` : host}:${config.gateway.port}`;
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  const { token, record } = await storage.tokens.create(purpose);
  return {
    url: address,
    token,
    async release() {
      await storage.tokens.revoke(record.id);
      await storage.close();
      return record.id;
    },
  };
}
