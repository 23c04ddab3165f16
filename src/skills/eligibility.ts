import type { SkillEntryConfig } from "../config/skills.ts";
import type { Skill } from "./types.ts";

/** What eligibility is checked against (tests give their own). */
export interface EligibilityContext {
  platform: string;
  /** prx's environment. */
  env: Record<string, string | undefined>;
  /** True when `program` is on PATH. */
  onPath(program: string): boolean;
  /** The configuration as parsed (requires.config reads dotted keys of it). */
  config: unknown;
  entry: SkillEntryConfig | undefined;
}

/** A dotted key of the configuration (`tools.shell_enabled`), undefined when any part is missing. */
function configValue(config: unknown, key: string): unknown {
  let value: unknown = config;
  for (const part of key.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

/** The variables `[skills.entries.<name>] env` supplies (a `from_env` whose variable is unset supplies nothing). */
export function entryEnv(entry: SkillEntryConfig | undefined, env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(entry?.env ?? {})) {
    const resolved = typeof value === "string" ? value : env[value.from_env];
    if (resolved !== undefined && resolved !== "") out[name] = resolved;
  }
  return out;
}

/**
 * Why a skill is not offered (OpenClaw's gating): `[skills.entries.<name>] enabled = false`, then, unless
 * `metadata.openclaw.always`, `os`, `requires.bins`, `requires.anyBins`, `requires.env`, `requires.config`.
 * Empty: it is eligible.
 */
export function ineligibleReasons(skill: Skill, context: EligibilityContext): string[] {
  const key = `[skills.entries.${skill.name}]`;
  if (context.entry?.enabled === false) return [`disabled by ${key} enabled = false`];
  const gates = skill.openclaw;
  if (!gates || gates.always === true) return [];
  const reasons: string[] = [];
  if (gates.os && gates.os.length > 0 && !gates.os.includes(context.platform)) {
    reasons.push(`runs on ${gates.os.join(", ")}, not ${context.platform} (metadata.openclaw.os)`);
  }
  const requires = gates.requires ?? {};
  const missing = (requires.bins ?? []).filter((bin) => !context.onPath(bin));
  if (missing.length > 0) reasons.push(`needs ${missing.join(", ")} on PATH (requires.bins)`);
  const any = requires.anyBins ?? [];
  if (any.length > 0 && !any.some((bin) => context.onPath(bin))) reasons.push(`needs one of ${any.join(", ")} on PATH (requires.anyBins)`);
  const supplied = entryEnv(context.entry, context.env);
  const unset = (requires.env ?? []).filter((name) => !context.env[name] && supplied[name] === undefined);
  if (unset.length > 0) reasons.push(`needs environment variable ${unset.join(", ")} set, or in ${key} env (requires.env)`);
  const off = (requires.config ?? []).filter((name) => !truthy(configValue(context.config, name)));
  if (off.length > 0) reasons.push(`needs config ${off.join(", ")} set to a true value (requires.config)`);
  return reasons;
}
