import { errorMessage } from "../../core/errors.ts";
import { defineTool } from "../define.ts";
import { fail, ok } from "../result.ts";
import type { Tool } from "../types.ts";
import { messageSendUnavailable } from "./agent-tools-policy.ts";
import { MessageSendArgs } from "./agent-tools-schemas.ts";
import { BUILTIN_TOOL_DESCRIPTIONS } from "./schemas.ts";
import type { BuiltinToolsOptions } from "./types.ts";

/** The channel a session target's message is recorded under when the session is new. */
export const MESSAGE_SEND_SESSION_CHANNEL = "message";

/**
 * message_send: text to one of the owner's named targets, a chat of a configured channel (through `deliver`) or
 * another session (added to it as the assistant's message). The model names targets; it never gives a chat id.
 */
export function createMessageSendTool(options: BuiltinToolsOptions): Tool {
  const targets = options.config.message_send.targets;
  return defineTool({
    unavailable: messageSendUnavailable(options),
    name: "message_send",
    description: BUILTIN_TOOL_DESCRIPTIONS.message_send,
    args: MessageSendArgs,
    async run(args, context) {
      const target = Object.hasOwn(targets, args.target) ? targets[args.target] : undefined;
      if (!target) {
        const names = Object.keys(targets);
        return fail(`unknown target "${args.target}"; configured targets: ${names.length > 0 ? names.join(", ") : "(none)"}`);
      }
      if ("session" in target) {
        if (!options.sessions) return fail("message_send cannot write to sessions here (no session store)");
        await options.sessions().append(target.session, [{ role: "assistant", content: args.text }], { channel: MESSAGE_SEND_SESSION_CHANNEL });
        return ok(`sent to ${args.target} (session ${target.session})`);
      }
      if (!options.deliver) {
        return fail(`message_send cannot reach channel ${target.channel} from here; run it where prx's channels are configured`);
      }
      try {
        const chat = { channel: target.channel, chat: target.chat, thread: target.thread ?? null };
        const { parts, files = 0, notes = [] } = await options.deliver(chat, args.text, context.signal, options.workspace);
        const sent = `sent to ${args.target} (${target.channel}${parts > 1 ? `, ${parts} parts` : ""}${files > 0 ? `, ${files} file${files > 1 ? "s" : ""}` : ""})`;
        return ok(notes.length > 0 ? `${sent}\n${notes.join("\n")}` : sent);
      } catch (error) {
        return fail(`message to ${args.target} (${target.channel}) was not delivered: ${errorMessage(error)}`);
      }
    },
  });
}
