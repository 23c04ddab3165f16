import { errorMessage, isPrxError } from "../../../../core/errors.ts";
import type { HostRpcArgs } from "./args.ts";
import { REMOTE_COMPOSE_STATE_MAX_MESSAGES } from "../../limits.ts";
import type { ProviderDescriptor } from "../../protocol/index.ts";
import type { HostRpcPeer } from "./types.ts";
import type { State } from "../../worker-runtime/types.ts";

/**
 * The providers elizaOS 1.x composeState runs: with onlyInclude, exactly those named in includeList; otherwise every
 * provider that is neither private nor dynamic, plus those named. Ordered by position (then declaration).
 */
export function selectProviders(
  providers: ProviderDescriptor[],
  includeList: string[] | null,
  onlyInclude: boolean,
): ProviderDescriptor[] {
  const named = new Set(includeList ?? []);
  const chosen =
    onlyInclude && includeList
      ? providers.filter((p) => named.has(p.name))
      : providers.filter((p) => named.has(p.name) || (!p.private && !p.dynamic));
  return chosen
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.position ?? 0) - (b.p.position ?? 0) || a.i - b.i)
    .map(({ p }) => p);
}

/**
 * runtime.composeState: this plugin's providers (see selectProviders) run against the message, plus the session's
 * recent history (`message.roomId` is the session). values merges the providers' values with `recentMessages`;
 * data.providers holds each provider's result; text joins the history and the providers' texts. prx keeps no
 * state cache, so every call composes afresh (skipCache changes nothing).
 */
export async function composeState(sup: HostRpcPeer, args: HostRpcArgs<"composeState">): Promise<State> {
  const sessionId = typeof args.message.roomId === "string" ? args.message.roomId : null;
  const history = sessionId ? await sup.host.recentMessages(sessionId, REMOTE_COMPOSE_STATE_MAX_MESSAGES) : [];
  const recentMessages = history.map((m) => `${m.role}: ${m.content}`).join("\n");
  const results: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  const texts: string[] = [];
  const depth = sup.providerDepth;
  if (depth === 0) {
    sup.providerDepth = depth + 1;
    try {
      for (const p of selectProviders(sup.descriptor().providers ?? [], args.includeList, args.onlyInclude)) {
        try {
          const result = await sup.call("provider", p.get.id, {
            message: args.message,
            state: { values: {}, data: {}, text: "" },
          });
          results[p.name] = result;
          const r = typeof result === "string" ? { text: result } : ((result ?? {}) as { text?: unknown; values?: unknown });
          if (typeof r.text === "string" && r.text) texts.push(r.text);
          if (r.values && typeof r.values === "object") Object.assign(values, r.values);
        } catch (error) {
          // the plugin itself went down: nothing after this provider can run either, so the caller sees why
          if (isPrxError(error, "REMOTE_CRASHED")) throw error;
          sup.log.warn(`provider ${p.name} failed during composeState`, { error: errorMessage(error) });
        }
      }
    } finally {
      sup.providerDepth--;
    }
  }
  return {
    values: { ...values, recentMessages, sessionId },
    data: { recentMessages: history, providers: results },
    text: [recentMessages, ...texts].filter(Boolean).join("\n\n"),
  };
}
