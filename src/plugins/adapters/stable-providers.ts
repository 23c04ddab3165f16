import type { PrxError } from "../../core/errors.ts";
import type { ChatRequest, ChatResponse, Provider } from "../../providers/types.ts";

/** How a family of prefixed plugin providers ("wasm:", "remote:") finds its current implementation. */
export interface ProviderFamily {
  prefix: string;
  /** The implementation in the generation current now, by name without the prefix. */
  find(name: string): Pick<Provider, "chat" | "listModels" | "probe"> | undefined;
  /** Every name currently served, with the prefix. */
  names(): string[];
  /** The error for a name not served: at resolve time (`gone` false) or at call time after a reload (`gone` true). */
  unknown(full: string, gone: boolean): PrxError;
}

/**
 * Stable plugin providers: a proxy holds no adapter; every call resolves the current generation, so a reload
 * swaps the implementation under long-lived consumers. `resolve` throws for a name not served now, so a
 * misconfigured default provider fails at start with the family's list of what is available.
 */
export class StableProviders {
  private readonly proxies = new Map<string, Provider>();

  constructor(private readonly family: ProviderFamily) {}

  /** The proxy for "<prefix><name>"; undefined for names of other families. */
  resolve(full: string): Provider | undefined {
    const { prefix, find, unknown } = this.family;
    if (!full.startsWith(prefix)) return undefined;
    const name = full.slice(prefix.length);
    if (!find(name)) throw unknown(full, false);
    let proxy = this.proxies.get(name);
    if (!proxy) {
      proxy = {
        name: full,
        chat: (request: ChatRequest): Promise<ChatResponse> => {
          const found = find(name);
          return found ? found.chat(request) : Promise.reject(unknown(full, true));
        },
        listModels: async () => (await find(name)?.listModels?.()) ?? [],
        probe: async () => {
          const found = find(name);
          return found ? ((await found.probe?.()) ?? null) : `${full} is not served by the current plugin generation`;
        },
      };
      this.proxies.set(name, proxy);
    }
    return proxy;
  }

  names(): string[] {
    return this.family.names();
  }
}
