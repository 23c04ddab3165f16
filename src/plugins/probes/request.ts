import { z } from "zod";
import { Stages } from "../../contracts/envelopes.ts";
import { PrxError } from "../../core/errors.ts";
import { ChatMessageSchema } from "../../contracts/chat.ts";

/**
 * The wire format of a probe (`wasm_plugins_manage` arguments, `prx plugins probe` JSON, the body of
 * `POST /api/plugins/:name/probe`) and of its answer: one zod schema each, parsed at the boundary.
 */
export const PROBE_MAX_MESSAGES = 256;
export const STORAGE_OPS = ["health", "store", "recall", "forget", "count"] as const;

const pluginName = () => z.string().min(1).max(64).optional();

export const ProbeRequestSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("list") }),
  z.strictObject({ action: z.literal("status"), plugin: pluginName() }),
  z.strictObject({ action: z.literal("reload"), plugin: pluginName() }),
  z.strictObject({
    action: z.literal("middleware_test"),
    plugin: pluginName(),
    stage: z.enum(Stages),
    data: z.unknown(),
  }),
  z.strictObject({ action: z.literal("cron_run"), plugin: pluginName(), name: z.string().min(1).max(200) }),
  z.strictObject({
    action: z.literal("provider_chat"),
    plugin: pluginName(),
    name: z.string().min(1).max(200),
    messages: z.array(ChatMessageSchema).min(1).max(PROBE_MAX_MESSAGES),
    model: z.string().min(1).max(200).optional(),
    temperature: z.number().min(0).max(2).optional(),
  }),
  z.strictObject({
    action: z.literal("storage"),
    plugin: pluginName(),
    name: z.string().min(1).max(200),
    op: z.enum(STORAGE_OPS),
    key: z.string().optional(),
    content: z.string().optional(),
    category: z.string().optional(),
    query: z.string().optional(),
    limit: z.number().int().optional(),
    session_id: z.string().nullable().optional(),
  }),
]);
export type ProbeRequest = z.infer<typeof ProbeRequestSchema>;
export const ProbeActions = [
  "list",
  "status",
  "reload",
  "middleware_test",
  "cron_run",
  "provider_chat",
  "storage",
] as const;

export const ProbeResponseSchema = z.object({
  action: z.enum(ProbeActions),
  plugin: z.string().nullable(),
  /** The generation the probe ran on (after a reload: the new one). */
  generation: z.number().int().positive(),
  result: z.record(z.string(), z.unknown()),
});
export type ProbeResponse = z.infer<typeof ProbeResponseSchema>;

export function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`)
    .join("; ");
}

/** Parse a probe request (tool arguments, CLI JSON, API body); `plugin` from the API path overrides the body's. */
export function parseProbeRequest(raw: unknown, plugin?: string): ProbeRequest {
  const input = plugin !== undefined && raw && typeof raw === "object" ? { ...raw, plugin } : raw;
  const parsed = ProbeRequestSchema.safeParse(input);
  if (!parsed.success) {
    throw new PrxError("BAD_REQUEST", `invalid probe: ${describe(parsed.error)}`, {
      status: 400,
      hint: `actions: ${ProbeActions.join(", ")}; e.g. {"action":"middleware_test","stage":"inbound","data":{...}}`,
    });
  }
  return parsed.data;
}
