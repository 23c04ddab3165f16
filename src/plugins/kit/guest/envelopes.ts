// The JSON envelopes a middleware sees at each stage of a turn (prx's src/contracts/envelopes.ts, as plain types;
// a type test keeps the two equal).

export type Stage = "inbound" | "llm_request" | "llm_response" | "outbound";

export interface EnvelopeToolCall {
  id: string;
  name: string;
  /** Raw JSON text of the arguments, as the model produced it. */
  arguments: string;
}

export interface EnvelopeMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls?: EnvelopeToolCall[] | undefined;
  /** For role "tool": the id of the call this answers. */
  tool_call_id?: string | undefined;
  /** For role "tool": the tool's name. */
  name?: string | undefined;
}

export interface EnvelopeToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  strict?: boolean | undefined;
}

export interface EnvelopeUsage {
  /** Cached prompt tokens included. */
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Present when the provider reported cached prompt tokens. */
  prompt_tokens_details?: { cached_tokens?: number | undefined } | undefined;
}

/** The user's message, once per turn, before anything else. */
export interface InboundEnvelope {
  text: string;
  channel: string;
  user_id: string | null;
  session_id: string;
  metadata: Record<string, unknown>;
}

/** Before each provider call. */
export interface LlmRequestEnvelope {
  messages: EnvelopeMessage[];
  model: string;
  temperature: number;
  tools: EnvelopeToolSpec[];
}

/** After each provider response. */
export interface LlmResponseEnvelope {
  text: string;
  tool_calls: EnvelopeToolCall[];
  model: string;
  usage: EnvelopeUsage | null;
}

/** The reply, before delivery. */
export interface OutboundEnvelope {
  text: string;
  channel: string;
  session_id: string;
}

export interface Envelopes {
  inbound: InboundEnvelope;
  llm_request: LlmRequestEnvelope;
  llm_response: LlmResponseEnvelope;
  outbound: OutboundEnvelope;
}
