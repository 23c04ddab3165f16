import { z } from "zod";

/**
 * `POST /api/plugins/<name>/reload` of a running gateway, as `prx plugins dev` calls it with its local token. The
 * answer is one of the two shapes below (the gateway's reload response, or its error body).
 */
export const DEV_RELOAD_TIMEOUT_MS = 60_000;

const ReloadedSchema = z.looseObject({
  success: z.literal(true),
  generation: z.number().int(),
  plugins: z.array(z.looseObject({ name: z.string(), outcome: z.string(), error: z.string().nullable() })),
});
const ErrorAnswerSchema = z.looseObject({ error: z.looseObject({ code: z.string(), message: z.string(), hint: z.string().optional() }) });

export type ReloadOutcome =
  | { kind: "reloaded"; generation: number; outcome: string; ms: number }
  | { kind: "refused"; status: number; code: string; message: string; ms: number }
  | { kind: "unreachable"; message: string };

/**
 * `removed`: the plugin's folder was deleted on purpose, so every plugin is reloaded and the generation published
 * without it (POST /api/plugins/reload?force=true: a plain reload refuses to take an active plugin down).
 */
export async function reloadInGateway(url: string, token: string, plugin: string, removed = false): Promise<ReloadOutcome> {
  const started = performance.now();
  let response: Response;
  const path = removed ? "/api/plugins/reload?force=true" : `/api/plugins/${encodeURIComponent(plugin)}/reload`;
  try {
    response = await fetch(`${url.replace(/\/+$/, "")}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(DEV_RELOAD_TIMEOUT_MS),
    });
  } catch (error) {
    return { kind: "unreachable", message: (error as Error).message };
  }
  const ms = performance.now() - started;
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "refused", status: response.status, code: "BAD_RESPONSE", message: `the gateway answered ${response.status}: ${text.slice(0, 200)}`, ms };
  }
  const reloaded = ReloadedSchema.safeParse(json);
  if (reloaded.success) {
    const mine = reloaded.data.plugins.find((p) => p.name === plugin);
    return { kind: "reloaded", generation: reloaded.data.generation, outcome: mine?.outcome ?? "unknown", ms };
  }
  const failed = ErrorAnswerSchema.safeParse(json);
  if (!failed.success) {
    return { kind: "refused", status: response.status, code: "BAD_RESPONSE", message: `unexpected answer ${response.status}: ${text.slice(0, 200)}`, ms };
  }
  const { code, message, hint } = failed.data.error;
  if (response.status === 401) {
    const other =
      `the gateway at ${url} does not accept this workspace's token: it serves another workspace (or reads its ` +
      "tokens from another database); run prx plugins dev with -w set to that gateway's workspace, or start this " +
      "workspace's gateway";
    return { kind: "refused", status: 401, code, message: `${other} (${message})`, ms };
  }
  return { kind: "refused", status: response.status, code, message: hint ? `${message} (${hint})` : message, ms };
}
