/** Tool names as the model APIs accept them (OpenAI, Anthropic): the one rule for built-in, plugin and MCP tools. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const TOOL_NAME_RULE = "1-64 characters of letters, digits, _ and -";

/** The plugin runtime's management tool (src/plugins/manage-tool.ts). */
export const MANAGE_TOOL_NAME = "wasm_plugins_manage";

/** Tools the model is offered only when `[tools] enabled` lists them (the owner reaches them through the CLI and API). */
export const OPT_IN_TOOL_NAMES = [MANAGE_TOOL_NAME] as const;
