import { z } from "zod";
import { validatePattern } from "../events/patterns.ts";
import {
  HOOK_ENV_DENIED_PREFIXES,
  HOOK_ENV_DENYLIST,
  HOOK_ENV_RESERVED,
  HOOK_MAX_ARGS,
  HOOK_MAX_ENV,
  HOOK_TIMEOUT_MAX_MS,
  HOOK_TIMEOUT_MIN_MS,
  HOOKS_MAX_ACTIONS,
} from "./limits.ts";

/** Event names are case-insensitive and `-` equals `_`: "Agent-End" is "agent_end". */
export function normalizeEventName(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

const noNul = (what: string) => z.string().refine((s) => !s.includes("\0"), `${what} must not contain NUL bytes`);

const timeoutSchema = () =>
  z
    .number()
    .int(`timeout_ms must be a whole number of milliseconds`)
    .min(HOOK_TIMEOUT_MIN_MS, `timeout_ms must be at least ${HOOK_TIMEOUT_MIN_MS}`)
    .max(HOOK_TIMEOUT_MAX_MS, `timeout_ms must be at most ${HOOK_TIMEOUT_MAX_MS}`);

function envDenial(key: string): string | null {
  const upper = key.toUpperCase();
  if ((HOOK_ENV_DENYLIST as readonly string[]).includes(upper)) return `${key} may not be set by a hook`;
  if (HOOK_ENV_DENIED_PREFIXES.some((p) => upper.startsWith(p))) return `${key} may not be set by a hook (DYLD_*)`;
  if ((HOOK_ENV_RESERVED as readonly string[]).includes(upper)) return `${key} is set by prx for every hook`;
  return null;
}

export const HookActionSchema = z
  .object({
    /** Program to run: an absolute path or a name looked up in PATH. Never run through a shell. */
    command: noNul("command").pipe(z.string().min(1, "command must not be empty")),
    args: z.array(noNul("an argument")).max(HOOK_MAX_ARGS, `at most ${HOOK_MAX_ARGS} args per action`).default([]),
    env: z
      .record(z.string(), noNul("an env value"))
      .default({})
      .superRefine((env, ctx) => {
        const keys = Object.keys(env);
        if (keys.length > HOOK_MAX_ENV)
          ctx.addIssue({ code: "custom", message: `at most ${HOOK_MAX_ENV} env entries per action` });
        for (const key of keys) {
          const denial = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
            ? envDenial(key)
            : `env name "${key}" must match [A-Za-z_][A-Za-z0-9_]*`;
          if (denial) ctx.addIssue({ code: "custom", path: [key], message: denial });
        }
      }),
    /** Working directory; relative paths are resolved against the workspace. */
    cwd: noNul("cwd").pipe(z.string().min(1)).optional(),
    timeout_ms: timeoutSchema().optional(),
    /** Also write the payload JSON to the hook's stdin (it is always in PRX_HOOK_PAYLOAD_FILE). */
    stdin_json: z.boolean().default(true),
  })
  .strict();
export type HookAction = z.output<typeof HookActionSchema>;
export type HookActionInput = z.input<typeof HookActionSchema>;

/** hooks.json. Event keys are event names or bus patterns (exact, `prefix.*`, `*`, legacy lifecycle names). */
export const HooksFileSchema = z
  .object({
    timeout_ms: timeoutSchema().optional(),
    hooks: z.record(z.string(), z.array(HookActionSchema)).default({}),
  })
  .strict()
  .superRefine((doc, ctx) => {
    let total = 0;
    const seen = new Map<string, string>();
    for (const [event, actions] of Object.entries(doc.hooks)) {
      total += actions.length;
      const normalized = normalizeEventName(event);
      try {
        validatePattern(normalized);
      } catch (error) {
        ctx.addIssue({ code: "custom", path: ["hooks", event], message: (error as Error).message });
      }
      const clash = seen.get(normalized);
      if (clash !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["hooks", event],
          message: `"${event}" and "${clash}" name the same event (${normalized}); merge their actions`,
        });
      }
      seen.set(normalized, event);
    }
    if (total > HOOKS_MAX_ACTIONS) {
      ctx.addIssue({
        code: "custom",
        path: ["hooks"],
        message: `${total} actions; at most ${HOOKS_MAX_ACTIONS} are allowed`,
      });
    }
  })
  .transform((doc) => ({
    ...doc,
    hooks: Object.fromEntries(
      Object.entries(doc.hooks).map(([event, actions]) => [normalizeEventName(event), actions]),
    ),
  }));
export type HooksFile = z.output<typeof HooksFileSchema>;
export type HooksFileInput = z.input<typeof HooksFileSchema>;

/** Render zod issues as one line each: "hooks.agent_end.0.env.PATH: PATH may not be set by a hook". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
