import { errorMessage } from "../core/errors.ts";
import { hintForStatus, protocolError, ProviderCall, type FetchLike, type HttpTarget } from "./http.ts";

/** GET a provider's model list and return the ids. */
export async function fetchModelIds(
  target: HttpTarget,
  url: string,
  headers: () => Record<string, string>,
  options: { fetch: FetchLike; timeoutMs: number },
): Promise<string[]> {
  const call = new ProviderCall(target, options.timeoutMs);
  try {
    // the schema (and zod) load with the first model list: a gateway's start never needs them
    const { ModelIdsSchema } = await import("./model-list-wire.ts");
    const response = await call.fetch(options.fetch, url, { headers: headers() });
    const parsed = ModelIdsSchema.safeParse(await call.readJson(response, url));
    if (!parsed.success) throw protocolError(target.provider, `unexpected model list from ${url}`);
    return parsed.data.data.map((model) => model.id);
  } catch (error) {
    throw call.fail(error, url);
  } finally {
    call.dispose();
  }
}

export interface ProbeOptions {
  fetch: FetchLike;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One cheap request: null when the server answered sensibly; a message when it did not. Any answer
 * >= 500 and any network failure count as unreachable; 401/403 mean reachable but the key was rejected.
 */
export async function probeOutcome(
  target: HttpTarget,
  url: string,
  init: () => RequestInit,
  options: ProbeOptions,
): Promise<string | null> {
  let requestInit: RequestInit;
  try {
    requestInit = init();
  } catch (error) {
    return errorMessage(error);
  }
  const call = new ProviderCall(target, options.timeoutMs, options.signal);
  try {
    const response = await options.fetch(url, { ...requestInit, signal: call.signal });
    await response.body?.cancel().catch(() => undefined);
    const { status } = response;
    if (status === 401 || status === 403) {
      const hint = hintForStatus(target, status);
      return `${target.provider}: reachable but key rejected (HTTP ${status} from ${url}); ${hint}`;
    }
    if (status >= 500) return `${target.provider}: unreachable: HTTP ${status} from ${url}`;
    return null;
  } catch (error) {
    return `${target.provider}: unreachable: ${call.fail(error, url).message}`;
  } finally {
    call.dispose();
  }
}
