import { errorMessage, PrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { REMOTE_PROVIDER_PREFIX } from "./remote.ts";
import { StableProviders } from "./stable-providers.ts";
import type { RemoteAdapter } from "./types.ts";

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

/** Stable `remote:<plugin>` providers (see StableProviders): a reload swaps the worker under long-lived consumers. */
export function remoteProviders(current: CurrentRemotes): StableProviders {
  return new StableProviders({
    prefix: REMOTE_PROVIDER_PREFIX,
    find: (name) => current()?.remote(name)?.provider ?? undefined,
    names: () => withModels(current),
    unknown: (full, gone) => unknownProvider(full, current, gone),
  });
}

export interface RemoteTurnInput {
  text: string;
  sessionId: string;
  userId?: string | null;
  signal?: AbortSignal;
}

/** Whether a remote plugin composes anything into prompts: it announced a provider that is not private. */
function givesContext(remote: RemoteAdapter): boolean {
  const providers = remote.handle.descriptor().providers;
  return providers !== undefined && providers.some((p) => !p.private);
}

/**
 * Context for the prompt from every remote plugin's providers (a failing plugin is logged and left out); a plugin
 * without public providers is not called. With none to call, synchronously nothing: the turn then does not wait a
 * tick for it.
 */
export function remoteContext(
  current: CurrentRemotes,
  input: RemoteTurnInput,
  logger: Logger,
): string[] | Promise<string[]> {
  const all = current()?.remotes() ?? NO_REMOTES;
  let remotes: RemoteAdapter[] | undefined;
  for (const remote of all) if (givesContext(remote)) (remotes ??= []).push(remote);
  return remotes === undefined ? NO_CONTEXT : contextOf(remotes, input, logger);
}

const NO_REMOTES: RemoteAdapter[] = [];
const NO_CONTEXT: string[] = [];

async function contextOf(remotes: RemoteAdapter[], input: RemoteTurnInput, logger: Logger): Promise<string[]> {
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

/** Run every remote plugin's evaluators after a turn; failures are logged, never thrown. Undefined when none. */
export function runRemoteEvaluators(
  current: CurrentRemotes,
  input: RemoteTurnInput,
  response: string,
  logger: Logger,
): Promise<void> | undefined {
  let remotes: RemoteAdapter[] | undefined;
  for (const remote of current()?.remotes() ?? NO_REMOTES) {
    if ((remote.handle.descriptor().evaluators?.length ?? 0) > 0) (remotes ??= []).push(remote);
  }
  return remotes === undefined ? undefined : evaluate(remotes, input, response, logger);
}

async function evaluate(remotes: RemoteAdapter[], input: RemoteTurnInput, response: string, logger: Logger) {
  await Promise.all(
    remotes.map((r) =>
      r
        .evaluate({ text: input.text, sessionId: input.sessionId, userId: input.userId ?? null, response })
        .catch((error) => logger.warn("remote evaluators failed", { plugin: r.plugin, error: errorMessage(error) })),
    ),
  );
}
