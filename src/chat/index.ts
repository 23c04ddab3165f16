export { runChat, type ChatOptions } from "./repl.ts";
export { runChatCommand, CHAT_HELP, type ChatState } from "./commands.ts";
export { createChatOutput, type ChatOutput } from "./render.ts";
export { recapLines, RECAP_MAX_MESSAGES, RECAP_MAX_CHARS } from "./recap.ts";
