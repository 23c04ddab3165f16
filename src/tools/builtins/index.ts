export { builtinToolSpecs, openBuiltinTools } from "./catalog.ts";
export { SHELL_ENABLE_HINT } from "./shell-policy.ts";
export type { BuiltinToolsOptions } from "./types.ts";
