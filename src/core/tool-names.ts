/** Tool names as the model APIs accept them (OpenAI, Anthropic): the one rule for built-in, plugin and MCP tools. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const TOOL_NAME_RULE = "1-64 characters of letters, digits, _ and -";
