import type { ToolSpec } from "../../providers/types.ts";
import type { Tool } from "../types.ts";
import { httpUnavailable } from "./http-allowlist.ts";
import { cronUnavailable } from "./cron-policy.ts";
import { shellUnavailable } from "./shell-policy.ts";
import type { BuiltinToolsOptions } from "./types.ts";
import { webSearchUnavailable } from "./web-search-policy.ts";
import { delegateUnavailable, messageSendUnavailable, sessionsUnavailable } from "./agent-tools-policy.ts";

/** Defined by build.ts in the compiled binary: specsFromSchemas() computed at build, as JSON. */
declare const PRX_BUILTIN_TOOL_SPECS: string | undefined;

/**
 * The built-in tools as the model is shown them. The binary carries them as computed from the argument schemas when
 * it was built; from source (or a binary built without the trick) they are computed now. A kept start-up trick
 * (src/boot/tricks.ts, "tools-at-rest"): a start that calls no tool never loads zod or the tools' schemas.
 */
export async function builtinToolSpecs(): Promise<ToolSpec[]> {
  if (typeof PRX_BUILTIN_TOOL_SPECS === "string") return JSON.parse(PRX_BUILTIN_TOOL_SPECS) as ToolSpec[];
  return (await import("./specs.ts")).specsFromSchemas();
}

/** Why a built-in tool refuses every call under this config (checked without loading the tool). */
function unavailable(name: string, options: BuiltinToolsOptions): string | undefined {
  if (name === "http_request") return httpUnavailable(options.config);
  if (name === "shell") return shellUnavailable(options.config);
  if (name === "web_search") return webSearchUnavailable(options.config);
  if (name === "message_send") return messageSendUnavailable(options);
  if (name === "sessions_list" || name === "sessions_history") return sessionsUnavailable(options);
  if (name === "delegate") return delegateUnavailable(options);
  if (name === "cron") return cronUnavailable(options);
  return undefined;
}

/**
 * The built-in tools for a host: each offers its spec at once and loads the tools themselves (their argument
 * schemas, implementations.ts) with the first call to any of them.
 */
export async function openBuiltinTools(options: BuiltinToolsOptions): Promise<Tool[]> {
  let built: Promise<Map<string, Tool>> | undefined;
  const implementation = async (name: string): Promise<Tool> => {
    built ??= import("./implementations.ts").then(
      ({ createBuiltinTools }) => new Map(createBuiltinTools(options).map((tool) => [tool.spec.name, tool])),
    );
    return (await built).get(name)!;
  };
  return (await builtinToolSpecs()).map((spec) => {
    const refusal = unavailable(spec.name, options);
    return {
      spec,
      ...(refusal === undefined ? {} : { unavailable: refusal }),
      execute: async (args, context) => (await implementation(spec.name)).execute(args, context),
    };
  });
}
