// What the test sandbox answers (`@prx/kit/test`): the shapes of src/plugins/kit/sandbox/protocol.ts, as plain
// types for plugin tests (a type test keeps the two equal).
import type { Envelopes, Stage } from "./envelopes.ts";

export interface LoadedPlugin {
  name: string;
  /** The directory the sandbox loaded (the plugin's own, built from its sources). */
  dir: string;
  capabilities: { type: string; name: string }[];
  /** The specs of the plugin's tools, as the model sees them. */
  tools: { name: string; description: string; parameters: Record<string, unknown> }[];
}

export interface ToolCallResult {
  /** False when the tool failed (its error, or a thrown error). */
  ok: boolean;
  output: string;
  error: string | null;
  /** What the tool delivered to the user during the call (a remote action's callback), in order. */
  messages: string[];
}

/** What prx does with the envelope a middleware returns. */
export type MiddlewareResult<S extends Stage = Stage> =
  | { action: "continue"; envelope: Envelopes[S] }
  | { action: "block"; reason: string }
  /** The middleware failed (error, invalid JSON, invalid envelope, timeout): prx passes the envelope on unchanged. */
  | { action: "failed"; failure: string; error: string };

export interface ProviderReply {
  text: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
}

export interface RecalledMemory {
  key: string;
  content: string;
  category: string;
  score: number | null;
}

export interface PublishedEvent {
  topic: string;
  payload: unknown;
}
