import { z } from "zod";

import { PrxError } from "../../core/errors.ts";
import type { HooksManager } from "./manager.ts";
import { HOOKS_FILE_MAX_BYTES } from "./limits.ts";
import type { HooksSnapshot } from "./types.ts";

/**
 * Framework-agnostic handlers behind `GET/POST/PUT/DELETE /api/hooks`: every edit goes through HooksManager, which
 * validates the whole candidate hooks.json before writing it atomically and swapping it in (an invalid edit
 * changes nothing and answers 400). `if_match` (the hash from GET) makes an edit conditional (409 when stale).
 */
/** Largest edit body: a whole hooks.json plus its JSON-string escaping. */
export const HOOKS_API_MAX_BODY_BYTES = 2 * HOOKS_FILE_MAX_BYTES;

const ifMatch = () =>
  z.string().max(128).nullable().optional().describe("hash from GET /api/hooks; null = no file yet");

export const HooksAddRequestSchema = z.strictObject({
  event: z.string().min(1).max(256).describe("event name or pattern, e.g. agent_end or prx.lifecycle.*"),
  action: z.record(z.string(), z.unknown()).describe("{command, args?, env?, cwd?, timeout_ms?, stdin_json?}"),
  if_match: ifMatch(),
});
export const HooksReplaceRequestSchema = z.strictObject({
  doc: z.record(z.string(), z.unknown()).describe('the whole hooks.json: {"timeout_ms"?: n, "hooks": {...}}'),
  if_match: ifMatch(),
});
export const HooksRemoveQuerySchema = z.strictObject({
  event: z.string().min(1).max(256),
  index: z.coerce.number().int().nonnegative().optional(),
  if_match: z.string().max(128).optional(),
});

export const HooksResponseSchema = z.object({
  hash: z.string().nullable(),
  actions: z.number().int().nonnegative(),
  doc: z.object({
    timeout_ms: z.number().int().optional(),
    hooks: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
  }),
  status: z.object({
    path: z.string(),
    dispatched: z.number(),
    runs: z.number(),
    failures: z.number(),
    last_reload: z.object({ at: z.string(), ok: z.boolean(), error: z.string().optional() }).nullable(),
    last_error: z.object({ event: z.string(), command: z.string(), message: z.string(), at: z.string() }).nullable(),
  }),
});
export type HooksResponse = z.infer<typeof HooksResponseSchema>;

function respond(hooks: HooksManager, snapshot: HooksSnapshot): HooksResponse {
  const s = hooks.status();
  return {
    hash: snapshot.hash,
    actions: snapshot.actions,
    doc: snapshot.doc as HooksResponse["doc"],
    status: {
      path: s.path,
      dispatched: s.dispatched,
      runs: s.runs,
      failures: s.failures,
      last_reload: s.lastReload,
      last_error: s.lastError,
    },
  };
}

function edit(value: string | null | undefined): { ifMatch?: string | null } {
  return value === undefined ? {} : { ifMatch: value };
}

export function listHooks(hooks: HooksManager): HooksResponse {
  return respond(hooks, hooks.list());
}

export function addHook(hooks: HooksManager, body: z.infer<typeof HooksAddRequestSchema>): HooksResponse {
  return respond(hooks, hooks.add(body.event, body.action, edit(body.if_match)));
}

export function replaceHooks(
  hooks: HooksManager,
  body: z.infer<typeof HooksReplaceRequestSchema>,
): HooksResponse {
  return respond(hooks, hooks.replace(body.doc, edit(body.if_match)));
}

export function removeHook(hooks: HooksManager, query: Record<string, string | undefined>): HooksResponse {
  const parsed = HooksRemoveQuerySchema.safeParse(
    Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PrxError("BAD_REQUEST", `invalid query: ${issue?.path.join(".") || "(query)"}: ${issue?.message}`, {
      status: 400,
      hint: "DELETE /api/hooks?event=<event>[&index=<n>][&if_match=<hash>]",
    });
  }
  const q = parsed.data;
  return respond(hooks, hooks.remove(q.event, q.index, edit(q.if_match)));
}
