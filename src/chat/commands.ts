import { timeText } from "../core/time-text.ts";
import type { AgentHost } from "../agent/index.ts";
import { PrxError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { modelFacts } from "../providers/model-facts.ts";
import type { ChatOutput } from "./render.ts";
import type { MediaRef } from "../contracts/chat.ts";
import { imageFromFile } from "../media/file.ts";
import { checkImageCount } from "../media/ingest.ts";

export interface ChatState {
  sessionId: string;
  /** The agent that answers ([agents.<id>]); default main. */
  agent?: string;
  model?: string;
  provider?: string;
  /** The inbound envelope's user_id (`--user`, or the OS user). */
  userId?: string | null;
  /** Images attached with /image, sent with the next message. */
  images?: MediaRef[];
}

export const CHAT_HELP = `Commands:
  /help              this help
  /new               start a new session
  /sessions          list recent sessions
  /switch <id>       continue another session
  /model <m>         use another model (or hint:<name>); /model alone shows the current one
  /image <path>      attach an image (PNG, JPEG, GIF, WebP) to your next message
  /compact           summarise the conversation so far (later turns carry the summary; nothing is deleted)
  /exit              leave (Ctrl-D works too; Ctrl-C cancels a running turn)`;

const NAMES = ["/help", "/new", "/sessions", "/switch", "/model", "/image", "/compact", "/exit", "/quit"];

/**
 * Returns "exit" to leave, true when the line was a command, false when it is a message for the agent. Throws a
 * PrxError when a command cannot be carried out (the chat shows it and goes on).
 */
export async function runChatCommand(line: string, state: ChatState, host: AgentHost, out: ChatOutput): Promise<"exit" | boolean> {
  if (!line.startsWith("/")) return false;
  const [name, ...args] = line.trim().split(/\s+/);
  switch (name) {
    case "/help":
      out.line(CHAT_HELP);
      return true;
    case "/exit":
    case "/quit":
      return "exit";
    case "/new":
      state.sessionId = newId("chat");
      out.info(`new session ${state.sessionId}`);
      return true;
    case "/sessions": {
      const sessions = await host.sessions.list(20);
      if (sessions.length === 0) out.info("no sessions yet");
      for (const s of sessions) {
        const mark = s.id === state.sessionId ? "*" : " ";
        out.line(`${mark} ${s.id}  ${timeText(s.updatedAt)}  ${s.messageCount} msgs  ${s.title}`);
      }
      return true;
    }
    case "/switch": {
      const id = args[0];
      if (!id) {
        out.error("usage: /switch <session id> (see /sessions)");
      } else if (!(await host.sessions.get(id))) {
        out.error(`no session ${id} (see /sessions)`);
      } else {
        state.sessionId = id;
        out.info(`switched to ${id}`);
      }
      return true;
    }
    case "/image": {
      const path = line.trim().slice("/image".length).trim();
      if (!path) {
        out.error("usage: /image <path of a PNG, JPEG, GIF or WebP file>");
        return true;
      }
      const images = state.images ?? [];
      checkImageCount(images.length + 1, "the next message");
      const image = await imageFromFile(path);
      state.images = [...images, image];
      const size = image.width && image.height ? ` ${image.width}x${image.height}` : "";
      out.info(`attached ${image.mime?.slice(6)}${size} (${state.images.length} for your next message)`);
      return true;
    }
    case "/compact": {
      if (!(await host.sessions.get(state.sessionId))) {
        out.info("nothing to compact yet");
        return true;
      }
      const done = await host.compactSession(state.sessionId, { provider: state.provider, model: state.model });
      if (!done.compacted) out.info("nothing new to compact");
      else out.info(`compacted ${done.folded} messages into the session summary (messages 1-${done.summary!.throughSeq}, by ${done.summary!.model})`);
      return true;
    }
    case "/model": {
      const model = args[0] ?? state.model;
      // Checked before it is kept: an unknown hint or provider throws, and the current model stays.
      const choice = host.resolveModelChoice({ provider: state.provider, model, agent: state.agent });
      host.providers.resolve(choice.provider);
      const listed = host.config.providers[choice.provider]?.models ?? [];
      if (listed.length > 0 && !listed.includes(choice.model)) {
        throw new PrxError("USAGE", `model "${choice.model}" is not one of provider ${choice.provider}'s models: ${listed.join(", ")}`, {
          hint: `add it to models in [providers.${choice.provider}] if the provider serves it`,
        });
      }
      state.model = model;
      out.info(`model: ${choice.model} (provider ${choice.provider})${modelNote(host, choice.provider, choice.model)}`);
      return true;
    }
  }
  const guess = NAMES.find((n) => n.startsWith(name!.slice(0, 3)));
  out.error(`unknown command ${name}${guess ? `; did you mean ${guess}?` : ""} (/help lists them)`);
  return true;
}

/** What prx knows of the model, so a typo or an unknown model is not taken silently. */
function modelNote(host: AgentHost, provider: string, model: string): string {
  if (!host.config.providers[provider]) return "";
  const facts = modelFacts(host.config, provider, model);
  const window = `${facts.context_window.toLocaleString("en-US")}-token window`;
  if (facts.source !== "default") return `, ${window}`;
  return `; prx knows nothing of this model: a ${window} is assumed (set [providers.${provider}.model_info."${model}"])`;
}
