import type { TurnInput } from "../agent/types.ts";
import { newId } from "../core/ids.ts";
import type { ToolSpec } from "../providers/types.ts";
import type { TurnMessages } from "./openai/convert.ts";

/** What a client-held conversation (chat completions, Responses, Messages) brings to one internal turn. */
export interface StatelessTurnRequest {
  /** Prefix of the throw-away session id, and the wire's name. */
  wire: string;
  channel: string;
  messages: TurnMessages;
  clientTools?: ToolSpec[];
  toolChoiceNone: boolean;
  userId?: string;
  /** The provider and model the request's `model` picked. */
  turn: { provider?: string; model?: string };
}

/** The turn's input (all but the signal and observer): the client's messages are its history; nothing is stored. */
export function statelessTurnInput(request: StatelessTurnRequest): Omit<TurnInput, "signal" | "observer"> {
  const { history, text, media, continuation } = request.messages;
  return {
    sessionId: newId(request.wire),
    text,
    channel: request.channel,
    historyOverride: history,
    ...(media ? { media } : {}),
    ...(continuation ? { continueFromHistory: true } : {}),
    ...(request.clientTools ? { clientTools: request.clientTools } : {}),
    ...(request.toolChoiceNone ? { toolChoice: "none" as const } : {}),
    ...(request.userId ? { userId: request.userId } : {}),
    ...request.turn,
  };
}
