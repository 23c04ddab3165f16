import { z } from "zod";
import { errorMessage } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

/** How long one provider's reachability probe may take (they run in parallel). */
export const PROVIDER_PROBE_TIMEOUT_MS = 5000;

const ProviderInfoSchema = z.object({
  name: z.string(),
  kind: z.string().describe("openai-compatible, anthropic, offline, or a plugin provider (wasm:, remote:)"),
  base_url: z.string().nullable(),
  key_env: z.string().nullable().describe("the environment variable holding its key (never the key)"),
  key_set: z.boolean().nullable().describe("whether that variable is set in the gateway's environment"),
  models: z.array(z.string()),
  role: z.enum(["default", "fallback", "configured"]),
  reachable: z.boolean().nullable().describe("null when the provider cannot be probed (offline, plugins)"),
  detail: z.string(),
});
const ProviderListSchema = z.object({ providers: z.array(ProviderInfoSchema) }).describe("providers and their reachability");
type ProviderInfo = z.infer<typeof ProviderInfoSchema>;

async function probeOne(gw: GatewayContext, name: string, role: ProviderInfo["role"]): Promise<ProviderInfo> {
  const settings = gw.host.config.providers[name];
  const keyEnv = settings?.api_key_env ?? null;
  const info: ProviderInfo = {
    name,
    kind: name.startsWith("wasm:") || name.startsWith("remote:") ? "plugin" : (settings?.kind ?? (name === "offline" ? "offline" : "openai-compatible")),
    base_url: settings?.base_url ?? null,
    key_env: keyEnv,
    key_set: keyEnv ? Boolean(process.env[keyEnv]) : null,
    models: settings?.models ?? [],
    role,
    reachable: null,
    detail: "",
  };
  try {
    const resolved = gw.host.providers.resolve(name);
    const provider = resolved.chain?.[0] ?? resolved;
    const problem = provider.configProblem?.();
    if (problem) return { ...info, reachable: false, detail: problem.hint ? `${problem.message}; ${problem.hint}` : problem.message };
    if (!provider.probe) return { ...info, detail: info.kind === "plugin" ? "plugin provider (see Plugins)" : "built in: always answers" };
    const failure = await provider.probe(AbortSignal.timeout(PROVIDER_PROBE_TIMEOUT_MS));
    return { ...info, reachable: failure === null, detail: failure ?? "reachable" };
  } catch (error) {
    return { ...info, reachable: false, detail: errorMessage(error) };
  }
}

/** GET /api/providers: every provider the config names, probed as `prx doctor` probes them. */
export function providerRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get(
    "/api/providers",
    async () => {
      const config = gw.host.config;
      const roles = new Map<string, ProviderInfo["role"]>([[config.default_provider, "default"]]);
      for (const name of config.reliability.fallback_providers) if (!roles.has(name)) roles.set(name, "fallback");
      for (const name of Object.keys(config.providers)) if (!roles.has(name)) roles.set(name, "configured");
      const providers = await Promise.all([...roles].map(([name, role]) => probeOne(gw, name, role)));
      return jsonResponse({ providers });
    },
    {
      detail: doc({
        summary: `Providers (default, fallbacks, configured) with their reachability, probed in parallel (<= ${PROVIDER_PROBE_TIMEOUT_MS} ms each)`,
        tags: ["system"],
        responses: { 200: ProviderListSchema },
      }),
    },
  );
}
