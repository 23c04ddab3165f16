import { errorMessage, PrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChatRequest, ChatResponse, Provider } from "../../providers/types.ts";
import { REMOTE_PROVIDER_PREFIX, type RemoteAdapter } from "./remote.ts";

/** What the remote proxies need from the runtime: the generation current at call time (null when not started). */
export type CurrentRemotes = () => { remote(name: string): RemoteAdapter | undefined; remotes(): RemoteAdapter[] } | null;

function withModels(current: CurrentRemotes): string[] {
  return (current()?.remotes() ?? [])
    .filter((r) => r.provider)
    .map((r) => REMOTE_PROVIDER_PREFIX + r.plugin)
    .sort();
}

function unknownProvider(full: string, current: CurrentRemotes, now = false): PrxError {
  const available = withModels(current);
  return new PrxError(
    "PROVIDER_UNKNOWN",
    now
      ? `provider "${full}" is no longer served by a loaded remote plugin`
      : `no loaded remote plugin serves models as "${full}"`,
    {
      status: 400,
      hint: `remote plugin providers: ${available.join(", ") || "(none)"}; a remote plugin serves one when it declares models (prx plugins list)`,
      details: { name: full, available },
    },
  );
}

/**
 * Stable `remote:<plugin>` providers: every call resolves the current generation, so a reload swaps the worker
 * under long-lived consumers (the agent host holds the proxy for its life). `resolve` throws PROVIDER_UNKNOWN for a
 * plugin that serves no models now, so a misconfigured default provider fails at start.
 */
export class RemoteProviderProxies {
  private readonly proxies = new Map<string, Provider>();

  constructor(private readonly current: CurrentRemotes) {}

  /** The proxy for "remote:<plugin>"; undefined for names of other kinds. */
  resolve(full: string): Provider | undefined {
    if (!full.startsWith(REMOTE_PROVIDER_PREFIX)) return undefined;
    const name = full.slice(REMOTE_PROVIDER_PREFIX.length);
    if (!this.provider(name)) throw unknownProvider(full, this.current);
    let proxy = this.proxies.get(name);
    if (!proxy) {
      const provider = (): Provider => {
        const found = this.provider(name);
        if (!found) throw unknownProvider(full, this.current, true);
        return found;
      };
      proxy = {
        name: full,
        chat: (request: ChatRequest): Promise<ChatResponse> => {
          try {
            return provider().chat(request);
          } catch (error) {
            return Promise.reject(error);
          }
        },
        listModels: async () => (await this.provider(name)?.listModels?.()) ?? [],
        probe: async () => (await this.provider(name)?.probe?.()) ?? (this.provider(name) ? null : `${full} is not served now`),
      };
      this.proxies.set(name, proxy);
    }
    return proxy;
  }

  names(): string[] {
    return withModels(this.current);
  }

  private provider(name: string): Provider | undefined {
    return this.current()?.remote(name)?.provider ?? undefined;
  }
}

export interface RemoteTurnInput {
  text: string;
  sessionId: string;
  userId?: string | null;
  signal?: AbortSignal;
}

/** Context for the prompt from every remote plugin's providers (a failing plugin is logged and left out). */
export async function remoteContext(current: CurrentRemotes, input: RemoteTurnInput, logger: Logger): Promise<string[]> {
  const remotes = current()?.remotes() ?? [];
  if (remotes.length === 0) return [];
  const message = { text: input.text, sessionId: input.sessionId, userId: input.userId ?? null };
  const parts = await Promise.all(
    remotes.map((r) =>
      r.context(message, input.signal).catch((error) => {
        logger.warn("remote plugin context left out of this turn", { plugin: r.plugin, error: errorMessage(error) });
        return [] as string[];
      }),
    ),
  );
  return parts.flat();
}

/** Run every remote plugin's evaluators after a turn; failures are logged, never thrown. */
export async function runRemoteEvaluators(
  current: CurrentRemotes,
  input: RemoteTurnInput,
  response: string,
  logger: Logger,
): Promise<void> {
  const remotes = (current()?.remotes() ?? []).filter((r) => (r.handle.descriptor().evaluators ?? []).length > 0);
  await Promise.all(
    remotes.map((r) =>
      r
        .evaluate({ text: input.text, sessionId: input.sessionId, userId: input.userId ?? null, response })
        .catch((error) => logger.warn("remote evaluators failed", { plugin: r.plugin, error: errorMessage(error) })),
    ),
  );
}
