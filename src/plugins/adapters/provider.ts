import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { ChatRequest, ChatResponse } from "../../providers/types.ts";
import { describeCapability, guestCall } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, ProviderAdapter } from "./types.ts";

/**
 * Provider adapters: a capability's guest exports `name()` and `chat(messages, model, temperature)`. It is reachable
 * only as `wasm:<name>` (the name its `name()` export returns, and its capability name when that differs), so a
 * plugin can never shadow a built-in provider. Plugin providers do not stream: the agent delivers the whole text.
 */
export const WASM_PROVIDER_PREFIX = "wasm:";
/** Names a provider or storage export may use. */
export const EXPORT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Temperature passed to a guest when the request has none. */
export const WASM_PROVIDER_DEFAULT_TEMPERATURE = 0.7;

export const GuestChatResponseSchema = z.preprocess(
  (value) =>
    value && typeof value === "object" && !("toolCalls" in value) && "tool-calls" in value
      ? { ...value, toolCalls: (value as Record<string, unknown>)["tool-calls"] }
      : value,
  z.object({
    text: z.string().nullable().optional(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string().min(1), arguments: z.string() })),
  }),
);

export function parseExportName(raw: unknown, where: string): string {
  if (typeof raw !== "string" || !EXPORT_NAME_PATTERN.test(raw)) {
    throw new PrxError(
      "PLUGIN_OUTPUT",
      `${where}: name() returned ${JSON.stringify(raw)}; expected 1-64 letters, digits, _ . -`,
    );
  }
  return raw;
}

/** Resolves with `work`, or rejects with ABORTED as soon as the signal fires (the guest call finishes in the background). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new PrxError("ABORTED", `${what} cancelled`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new PrxError("ABORTED", `${what} cancelled`));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export async function createProviderAdapter(context: AdapterContext): Promise<ProviderAdapter> {
  const where = describeCapability(context);
  const exportName = parseExportName(await guestCall(context, "name", [], "name", (raw) => raw), where);
  const provider = `${WASM_PROVIDER_PREFIX}${exportName}`;
  return {
    type: "provider",
    plugin: context.plugin.name,
    capability: context.capability,
    exportName,
    async chat(request) {
      const messages = request.messages.map((m) => ({ role: m.role, content: m.content }));
      const temperature = request.temperature ?? WASM_PROVIDER_DEFAULT_TEMPERATURE;
      const call = guestCall(
        context,
        "chat",
        [messages, request.model, temperature],
        `chat ${request.model}`,
        (raw) => {
          const parsed = GuestChatResponseSchema.safeParse(raw);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            throw new PrxError(
              "PLUGIN_OUTPUT",
              `${where}: chat returned an invalid response at ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
            );
          }
          return parsed.data;
        },
      );
      const result = await abortable(call, request.signal, `${provider} chat`);
      return {
        text: result.text ?? "",
        toolCalls: result.toolCalls,
        model: request.model,
        finishReason: result.toolCalls.length > 0 ? "tool_calls" : "stop",
        provider,
      };
    },
  };
}

/**
 * The providers of a generation's adapters (in chain order), by name (its `name()` and, when different, its
 * capability name). On a clash the first in chain order (priority, then plugin name) wins. Built once, when the
 * generation is sealed.
 */
export function providersByName(adapters: readonly ProviderAdapter[]): Map<string, ProviderAdapter> {
  const map = new Map<string, ProviderAdapter>();
  for (const adapter of adapters) {
    for (const name of new Set([adapter.exportName, adapter.capability.name])) {
      const owner = map.get(name);
      if (owner && owner !== adapter) continue;
      map.set(name, adapter);
    }
  }
  return map;
}
