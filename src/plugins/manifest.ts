import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { PrxError } from "../core/errors.ts";
import { lineOf, locatePaths, type PathLines } from "../config/locate.ts";
import {
  DEFAULT_HOST_CALL_BURST,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_HOST_CALLS_PER_SECOND,
  MAX_HOST_CALL_BURST_LIMIT,
  MAX_HOST_CALLS_IN_FLIGHT_LIMIT,
  MAX_HOST_CALLS_PER_SECOND_LIMIT,
} from "./host-calls/limits.ts";
import { REMOTE_DEFAULT_MAX_MEMORY_MB } from "./remote/limits.ts";
import { RemoteSectionSchema } from "./remote/manifest.ts";
import { CapabilityTypes, DEFAULT_MAX_KV_STORAGE_MB, PLUGIN_PERMISSIONS } from "./types.ts";

/**
 * plugin.toml: one zod schema, parsed at the boundary. Unknown keys are collected as warnings (PRX manifests in
 * the wild carry extras); everything else that is wrong is an error naming the file, the key path and the problem.
 */
export const PLUGIN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const CAPABILITY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** The WIT contract version this host implements (`prx:plugin@0.1.0`). Compatible: same 0.1.x. */
export const PLUGIN_API_VERSION = "0.1.0";
export const DEFAULT_WASM_FILE = "plugin.wasm";
export const DEFAULT_CAPABILITY_PRIORITY = 100;
export const MANIFEST_MAX_CAPABILITIES = 64;
export const MIDDLEWARE_STAGES = ["inbound", "llm_request", "llm_response", "outbound"] as const;
export type MiddlewareStage = (typeof MIDDLEWARE_STAGES)[number];

export const DEFAULT_MAX_MEMORY_MB = 64;
export const MAX_MEMORY_MB_LIMIT = 4096;
export const DEFAULT_MAX_EXECUTION_TIME_MS = 5_000;
export const MAX_EXECUTION_TIME_MS_LIMIT = 600_000;
export const DEFAULT_MAX_HTTP_REQUESTS_PER_CALL = 10;
export const MAX_HTTP_REQUESTS_PER_CALL_LIMIT = 1_000;
export const MAX_KV_STORAGE_MB_LIMIT = 1_024;

function isCompatibleApiVersion(version: string): boolean {
  const wanted = PLUGIN_API_VERSION.split(".");
  const got = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(version);
  if (!got) return false;
  // 0.x: the minor version is the breaking one; >= 1: the major.
  return wanted[0] === "0" ? got[1] === "0" && got[2] === wanted[1] : got[1] === wanted[0];
}

const PluginSectionSchema = z.strictObject({
  name: z.string().regex(PLUGIN_NAME_PATTERN, "must match ^[a-z0-9][a-z0-9_-]{0,63}$ (lowercase, digits, _ and -)"),
  version: z.string().min(1),
  api_version: z
    .string()
    .default(PLUGIN_API_VERSION)
    .refine(isCompatibleApiVersion, {
      message: `incompatible api_version: this host implements prx:plugin@${PLUGIN_API_VERSION} (0.1.x accepted)`,
    }),
  description: z.string().default(""),
  author: z.string().optional(),
  license: z.string().optional(),
  wasm: z.string().min(1).default(DEFAULT_WASM_FILE),
  runtime: z.enum(["wasm", "remote"]).default("wasm"),
});

const EventTableSchema = z.looseObject({ pattern: z.string().min(1) });
const EventsSchema = z.array(z.union([z.string().min(1), EventTableSchema]));

const CapabilitySchema = z
  .strictObject({
    type: z.enum(CapabilityTypes),
    name: z.string().regex(CAPABILITY_NAME_PATTERN, "must be 1-64 characters of letters, digits, _ . -"),
    description: z.string().default(""),
    priority: z.number().int().min(-1_000_000).max(1_000_000).default(DEFAULT_CAPABILITY_PRIORITY),
    events: EventsSchema.optional(),
    schedule: z.string().min(1).optional(),
    stages: z.array(z.enum(MIDDLEWARE_STAGES)).min(1).optional(),
    risk: z
      .enum(["read", "write", "execute", "network", "message"])
      .optional()
      .describe("a tool's risk class for [autonomy]: read tools run without asking; undeclared is asked about like write"),
  })
  .superRefine((cap, ctx) => {
    if (cap.type === "hook" && (!cap.events || cap.events.length === 0)) {
      const message = "a hook capability needs at least one event pattern";
      ctx.addIssue({ code: "custom", path: ["events"], message });
    }
    if (cap.type === "cron") {
      const fields = cap.schedule?.trim().split(/\s+/).length ?? 0;
      if (fields !== 5 && fields !== 6) {
        const message = "a cron capability needs a 5- or 6-field schedule";
        ctx.addIssue({ code: "custom", path: ["schedule"], message });
      }
    }
  });

const PermissionNameSchema = z.enum(PLUGIN_PERMISSIONS, {
  error: (issue) => `unknown permission ${JSON.stringify(issue.input)}; permissions are ${PLUGIN_PERMISSIONS.join(", ")}`,
});

const PermissionsSchema = z.strictObject({
  required: z.array(PermissionNameSchema).default([]),
  optional: z.array(PermissionNameSchema).default([]),
  http_allowlist: z.array(z.string().min(1)).default([]),
});

const ResourcesSchema = z.strictObject({
  // the default depends on the runtime (normalize): a remote plugin is a whole JS runtime, a wasm guest is not
  max_memory_mb: z.number().int().min(1).max(MAX_MEMORY_MB_LIMIT).optional(),
  max_execution_time_ms: z
    .number()
    .int()
    .min(1)
    .max(MAX_EXECUTION_TIME_MS_LIMIT)
    .default(DEFAULT_MAX_EXECUTION_TIME_MS),
  max_http_requests_per_call: z
    .number()
    .int()
    .min(0)
    .max(MAX_HTTP_REQUESTS_PER_CALL_LIMIT)
    .default(DEFAULT_MAX_HTTP_REQUESTS_PER_CALL),
  max_kv_storage_mb: z.number().int().min(0).max(MAX_KV_STORAGE_MB_LIMIT).default(DEFAULT_MAX_KV_STORAGE_MB),
  max_fuel: z.number().int().min(0).optional(),
  max_host_calls_per_second: z
    .number()
    .int()
    .min(1)
    .max(MAX_HOST_CALLS_PER_SECOND_LIMIT)
    .default(DEFAULT_MAX_HOST_CALLS_PER_SECOND),
  host_call_burst: z.number().int().min(1).max(MAX_HOST_CALL_BURST_LIMIT).default(DEFAULT_HOST_CALL_BURST),
  max_host_calls_in_flight: z
    .number()
    .int()
    .min(1)
    .max(MAX_HOST_CALLS_IN_FLIGHT_LIMIT)
    .default(DEFAULT_MAX_HOST_CALLS_IN_FLIGHT),
});

/** The plugin.toml schema. */
export const PluginManifestSchema = z
  .strictObject({
    plugin: PluginSectionSchema,
    capabilities: z.array(CapabilitySchema).max(MANIFEST_MAX_CAPABILITIES).default([]),
    permissions: PermissionsSchema.default(PermissionsSchema.parse({})),
    resources: ResourcesSchema.default(ResourcesSchema.parse({})),
    config: z.record(z.string(), z.string()).default({}),
    // `[remote]` for `runtime = "remote"` is owned by the remote subsystem
    remote: RemoteSectionSchema.optional(),
  })
  .superRefine((manifest, ctx) => {
    if (manifest.plugin.runtime === "remote" && !manifest.remote) {
      const message = 'runtime = "remote" needs a [remote] table with entry';
      ctx.addIssue({ code: "custom", path: ["remote"], message });
    }
    const seen = new Set<string>();
    manifest.capabilities.forEach((cap, index) => {
      const key = `${cap.type}:${cap.name}`;
      if (seen.has(key)) {
        const message = `duplicate ${cap.type} "${cap.name}"`;
        ctx.addIssue({ code: "custom", path: ["capabilities", index, "name"], message });
      }
      seen.add(key);
    });
  });

type RawManifest = z.infer<typeof PluginManifestSchema>;
type RawCapability = RawManifest["capabilities"][number];

/** A capability after normalisation: events always as a pattern list, stages always explicit for middleware. */
export interface ManifestCapability extends Omit<RawCapability, "events" | "stages"> {
  events: string[];
  stages: MiddlewareStage[];
}

export interface PluginManifest extends Omit<RawManifest, "capabilities" | "resources"> {
  capabilities: ManifestCapability[];
  resources: RawManifest["resources"] & { max_memory_mb: number };
}

/**
 * `[resources] max_memory_mb` when the manifest does not set it: DEFAULT_MAX_MEMORY_MB for a wasm guest (its linear
 * memory), REMOTE_DEFAULT_MAX_MEMORY_MB for a remote plugin (a whole JS heap or process).
 */
export function defaultMaxMemoryMb(runtime: "wasm" | "remote"): number {
  return runtime === "remote" ? REMOTE_DEFAULT_MAX_MEMORY_MB : DEFAULT_MAX_MEMORY_MB;
}

export interface ParsedManifest {
  manifest: PluginManifest;
  warnings: string[];
}

function where(file: string, lines: PathLines, path: PropertyKey[]): string {
  const parts = path.map(String);
  const line = lineOf(lines, parts);
  return `${file}${line ? `:${line}` : ""}: ${parts.length ? `"${parts.join(".")}"` : "(top level)"}`;
}

function deleteAt(raw: unknown, path: PropertyKey[], key: string): void {
  let node: unknown = raw;
  for (const part of path) {
    if (node === null || typeof node !== "object") return;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  if (node !== null && typeof node === "object") delete (node as Record<string, unknown>)[key];
}

function normalize(raw: RawManifest, file: string, lines: PathLines, warnings: string[]): PluginManifest {
  const capabilities = raw.capabilities.map((cap, index): ManifestCapability => {
    const events = (cap.events ?? []).map((event, e) => {
      if (typeof event === "string") return event;
      for (const extra of Object.keys(event).filter((k) => k !== "pattern")) {
        warnings.push(`${where(file, lines, ["capabilities", index, "events", e, extra])}: unknown key, ignored`);
      }
      return event.pattern;
    });
    if (cap.stages && cap.type !== "middleware") {
      warnings.push(`${where(file, lines, ["capabilities", index, "stages"])}: only middleware uses stages, ignored`);
    }
    const stages = cap.type === "middleware" ? [...new Set(cap.stages ?? MIDDLEWARE_STAGES)] : [];
    return { ...cap, events, stages };
  });
  if (raw.remote && raw.plugin.runtime !== "remote") {
    warnings.push(`${where(file, lines, ["remote"])}: [remote] is only used with runtime = "remote", ignored`);
  }
  const max_memory_mb = raw.resources.max_memory_mb ?? defaultMaxMemoryMb(raw.plugin.runtime);
  return { ...raw, capabilities, resources: { ...raw.resources, max_memory_mb } };
}

/** Parse plugin.toml text. `file` names the source in messages. Throws PrxError PLUGIN_MANIFEST. */
export function parseManifest(source: string, file = "plugin.toml"): ParsedManifest {
  let raw: unknown;
  try {
    raw = parseToml(source);
  } catch (cause) {
    const at = cause instanceof TomlError ? `:${cause.line}:${cause.column}` : "";
    const first = (cause as Error).message.split("\n")[0];
    throw new PrxError("PLUGIN_MANIFEST", `${file}${at}: invalid TOML: ${first}`, {
      cause,
      hint: "fix the syntax at that line; `prx plugins validate <dir>` checks a plugin directory",
    });
  }
  const lines = locatePaths(source);
  const warnings: string[] = [];
  let result = PluginManifestSchema.safeParse(raw);
  if (!result.success) {
    const unknown = result.error.issues.filter((issue) => issue.code === "unrecognized_keys");
    for (const issue of unknown) {
      for (const key of issue.keys) {
        warnings.push(`${where(file, lines, [...issue.path, key])}: unknown key, ignored`);
        deleteAt(raw, issue.path, key);
      }
    }
    if (unknown.length === result.error.issues.length) result = PluginManifestSchema.safeParse(raw);
  }
  if (!result.success) {
    const problems = result.error.issues
      .filter((issue) => issue.code !== "unrecognized_keys")
      .map((issue) => `${where(file, lines, issue.path)}: ${issue.message}`);
    throw new PrxError("PLUGIN_MANIFEST", problems.join("\n"), {
      hint: "`prx plugins new NAME` writes a valid plugin.toml to start from; `prx plugins validate <dir>` checks a plugin directory",
      details: { warnings },
    });
  }
  return { manifest: normalize(result.data, file, lines, warnings), warnings };
}
