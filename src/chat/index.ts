export { runChat, type ChatOptions } from "./repl.ts";
export { runChatCommand, CHAT_HELP, type ChatState } from "./commands.ts";
export { createChatOutput, type ChatOutput } from "./render.ts";
