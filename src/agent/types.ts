import type { Config } from "../config/schema.ts";
import type { MiddlewareRunner, Stage } from "../contracts/envelopes.ts";
import type { LifecycleName } from "../contracts/lifecycle.ts";
import type { EventPublisher } from "../core/events.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { ModelChoice } from "../providers/routes.ts";
import type { ChatMessage, MediaRef, ProviderResolver, ResponseFormat, ToolCall, ToolSpec, Usage } from "../providers/types.ts";
import type { InboxRef, MediaStore, SessionStore } from "../storage/types.ts";
import type { UsageRecorder } from "./usage-recorder.ts";
import type { Transcriber } from "./media.ts";
import type { ContextRatios } from "./context-window.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import type { ApprovalRoute } from "./approvals/types.ts";
import type { Tracer } from "../telemetry/index.ts";

/** One user message entering the agent, from any entry point (chat, agent CLI, gateway, channel). */
export interface TurnInput {
  /** Existing or new session id; created if absent in the store. */
  sessionId: string;
  text: string;
  /**
   * Images and audio of the user's message (refs carrying their bytes as `data`, or https image URLs). Audio becomes
   * its transcript in the text; images go to the model, or as a text note to a model without vision.
   */
  media?: MediaRef[];
  /** "cli", "chat", "gateway", "webhook", "openai", "telegram", ... */
  channel: string;
  userId?: string | null;
  metadata?: Record<string, unknown>;
  /**
   * The turn runs again if its process dies in it (a channel answers its stored message at the next start): the
   * user's message is written at once, with the mark of `answering` (the stored inbound message) in the same write, each
   * tool round as it completes, and the answer when the turn ends. `resumed`: the session holds the user's message already (a rerun of a turn
   * cut off after writing it): the turn continues from the history with no new user message and no inbound middleware
   * (the message passed it before); memory recall uses the last user message. `at`: the seq of that user message
   * (InboxRow.startedSeq): the history ends with the turn's own messages, so a turn whose message is no longer the
   * session's last (another turn wrote to the session since) answers its own message, with the history up to it.
   */
  rerunnable?: { answering?: InboxRef; resumed?: boolean; at?: number };
  /** The agent that answers ([agents.<id>]); default "main". `model = "agent:<id>"` names it too. */
  agent?: string;
  /** Provider name override ("openai", "wasm:x"); default from config. */
  provider?: string;
  /** Model override; "hint:<name>" selects a model route. */
  model?: string;
  signal?: AbortSignal;
  observer?: TurnObserver;
  /**
   * When set, the turn uses these messages as history instead of the stored session
   * (OpenAI-compatible API: the client sends the whole conversation). Nothing is persisted then.
   */
  historyOverride?: ChatMessage[];
  /**
   * The history ends with results of tool calls the client ran (the OpenAI API's follow-up): no new user message.
   * `text` is ignored and no inbound middleware runs (the user's message passed it in the request that asked for
   * the calls); memory recall uses the last user message. Needs historyOverride.
   */
  continueFromHistory?: boolean;
  /**
   * Tools the client runs itself (the OpenAI API's `tools`), offered to the model beside the server's. When the model
   * calls one the turn ends and returns the call (TurnResult.clientToolCalls); the server's calls in that same
   * response are not run. Needs historyOverride (the client holds the conversation).
   */
  clientTools?: ToolSpec[];
  /** "none": the model is offered no tool at all this turn (default "auto"). */
  toolChoice?: "auto" | "none";
  /**
   * The only skills this turn may use (an agent's `skills` allowlist); absent: every eligible skill. Only their names
   * and descriptions go into the system prompt, and the `skill` tool reads only them.
   */
  skills?: readonly string[];
  /**
   * How a call that needs the owner's approval reaches them ([autonomy]); default: the host's (OpenAgentHostOptions
   * .approvals), else refused at once (no one would be told).
   */
  approvals?: ApprovalRoute;
  /** The request's own sampling (an API's temperature, longest answer and answer format); what it leaves out is config's. */
  sampling?: TurnSampling;
  /**
   * Whether the sender is the owner, asked only when a tool needs to know (sessions_list, sessions_history read the
   * owner's sessions); absent: the owner (the CLI, the gateway's token holder). A channel's other senders are not.
   */
  fromOwner?: () => boolean | Promise<boolean>;
  /** A helper turn's own instructions instead of [agent] system_prompt (delegate). */
  systemPrompt?: string;
  /** Only these tools are offered and callable this turn (delegate's subset); undefined: every tool. */
  toolNames?: readonly string[];
  /** Tool rounds this turn may take, instead of [agent] max_tool_iterations. */
  maxIterations?: number;
  /** The turn asks the model no more once its calls have used this many tokens (prompt + completion). */
  tokenBudget?: number;
}

export interface TurnSampling {
  temperature?: number;
  /** Longest answer of each model call, in tokens. */
  maxTokens?: number;
  format?: AnswerFormat;
}

/**
 * A format the final answer must fit (OpenAI's response_format, the Responses API's text.format). It is asked of the
 * provider natively where it can be, the answer is checked, and one that does not fit is sent back to the model with
 * what is wrong, ANSWER_FORMAT_CORRECTIONS times at most. A turn with a format streams its answer whole, once checked.
 */
export interface AnswerFormat {
  request: ResponseFormat;
  /** What is wrong with an answer, or null when it fits. */
  check(text: string): string | null;
}

/** Live progress of a turn, for streaming UIs (chat, SSE). All callbacks are optional and must not throw. */
export interface TurnObserver {
  onDelta?(text: string): void;
  onToolCallStart?(call: ToolCall): void;
  onToolResult?(call: ToolCall, result: ToolResult): void;
  /** An intermediate message for the user during the turn (e.g. a remote plugin's actionCallback). */
  onMessage?(text: string): void;
}

export interface TurnToolRecord {
  call: ToolCall;
  result: ToolResult;
}

/** A middleware ended the turn: who, where, and the reason the user got as the reply. */
export interface TurnBlock {
  plugin: string;
  capability: string;
  stage: Stage;
  reason: string;
}

export interface TurnResult {
  sessionId: string;
  /** Final assistant text after outbound middleware, or the reason of a middleware block. */
  text: string;
  model: string;
  provider: string;
  usage: Usage;
  toolCalls: TurnToolRecord[];
  /** Provider calls made. */
  iterations: number;
  /** Intermediate messages delivered during the turn. */
  messages: string[];
  /** Set when a middleware blocked the turn (then `text` is its reason). */
  blocked?: TurnBlock;
  /** Set when the model called client tools (TurnInput.clientTools): the turn ended for the client to run them. */
  clientToolCalls?: ToolCall[];
  /** The final answer still did not fit TurnInput.sampling.format after its corrections: what is wrong with it. */
  formatProblem?: string;
}

/** Publishes one lifecycle event of the turn (the turn adds its session id and channel). */
export type LifecycleEmit = (name: LifecycleName, payload: Record<string, unknown>) => void;

export interface TurnTools {
  specs(): ToolSpec[];
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
}

/** Optional contributions from plugins: prompt context before a turn, evaluators after it. */
export interface TurnExtensions {
  /** A plain array when nothing has to be awaited. */
  context?(input: TurnInput): string[] | Promise<string[]>;
  /** Undefined when there was nothing to run. */
  afterTurn?(input: TurnInput, result: TurnResult): Promise<void> | undefined;
}

/** What a turn runs on: the host's configuration, stores, providers, tools, middleware and event bus. */
export interface TurnDeps {
  config: Config;
  workspace: string;
  sessions: SessionStore;
  providers: ProviderResolver;
  resolveModelChoice(opts: { provider?: string; model?: string; agent?: string }): ModelChoice;
  tools: TurnTools;
  memory: () => MemoryBackend;
  middleware: MiddlewareRunner;
  events: EventPublisher;
  extensions?: TurnExtensions;
  /** Where images and audio are kept by hash (opened on first use: a text turn never touches it). */
  media?: () => MediaStore;
  /** Audio to text, when a transcription model is configured. */
  transcribe?: Transcriber;
  /** How far each session's prompt estimate was from the provider's count (the host's; none: estimates stand). */
  contextRatios?: ContextRatios;
  /** Counts usage into the kept totals: with it, assistant messages carry their usage and budgets are enforced. */
  usage?: () => UsageRecorder;
  /** Clock of budgets and usage days (tests move it); Date.now by default. */
  now?: () => number;
  /** The system prompt's skills section for a turn allowed `filter` (names and descriptions; "" when none). */
  skills?: (filter: readonly string[] | undefined) => Promise<string>;
  /** Spans of the turn, its model and tool calls ([telemetry]); absent or disabled: none. */
  tracer?: Tracer;
}

export type { ConversationSummary, SessionSummary, StoredMessage, SessionStore } from "../storage/types.ts";
