import type { Config } from "../config/schema.ts";
import { PrxError, errorMessage, toPrxError } from "../core/errors.ts";
import type { EventPublisher } from "../core/events.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { StreamDelta, ChatMessage, ProviderResolver, ToolCall, ToolSpec } from "../providers/types.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { MiddlewareBlock, type Envelopes, type MiddlewareRunner, type Stage, type StageOutput } from "../contracts/envelopes.ts";
import { lifecycleTopic, type LifecycleName } from "../contracts/lifecycle.ts";
import { autoRecall } from "./recall.ts";
import { buildMessages } from "./prompt.ts";
import { validateSessionId } from "./sessions.ts";
import type { SessionStore } from "../storage/types.ts";
import { lastUserText, runToolRound, safely } from "./tool-round.ts";
import type { TurnBlock, TurnInput, TurnResult, TurnToolRecord } from "./types.ts";
import { addUsage, ZERO_USAGE } from "./usage.ts";

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

export interface TurnDeps {
  config: Config;
  workspace: string;
  sessions: SessionStore;
  providers: ProviderResolver;
  resolveModelChoice(opts: { provider?: string; model?: string }): { provider: string; model: string };
  tools: TurnTools;
  memory: () => MemoryBackend;
  middleware: MiddlewareRunner;
  events: EventPublisher;
  extensions?: TurnExtensions;
}

/** What a finished turn reports besides its text. */
type TurnOutcome = Pick<TurnResult, "model" | "provider" | "usage" | "toolCalls" | "iterations">;

/**
 * One turn of the agent: inbound middleware -> loop { llm_request -> provider -> llm_response -> tools }
 * -> outbound middleware. The session keeps everything said, even when the turn fails part-way; a turn that cannot
 * start (bad session id, unknown provider or model) stores nothing, and a session is created with its first message.
 */
export async function executeTurn(deps: TurnDeps, input: TurnInput): Promise<TurnResult> {
  const { config, events, middleware } = deps;
  const signal = input.signal ?? new AbortController().signal;
  const observer = input.observer ?? {};
  const persist = !input.historyOverride;
  const emit = (name: LifecycleName, payload: Record<string, unknown>) => {
    const topic = lifecycleTopic(name);
    if (events.wants?.(topic) !== false)
      events.publish(topic, { session_id: input.sessionId, channel: input.channel, ...payload });
  };
  const delivered: string[] = [];
  const sendMessage = (text: string) => {
    delivered.push(text);
    safely(() => observer.onMessage?.(text));
  };
  // Streaming raw deltas would bypass llm_response/outbound transformations, so buffer when they are active.
  const streamDeltas = !middleware.active || (!middleware.active("llm_response") && !middleware.active("outbound"));
  // A stage no middleware sees passes its envelope through: skip the runner (a promise and a generation lookup).
  const seen = (name: Stage): boolean => !middleware.active || middleware.active(name);
  const stage = <S extends Stage>(name: S, envelope: Envelopes[S]): StageOutput<S> | Promise<StageOutput<S>> =>
    seen(name) ? middleware.run(name, envelope) : envelope;
  // Deltas matter to an observer, and to a stored session (it keeps the partial answer of a failed stream). A
  // stateless turn with no observer (the gateway's JSON chat completion) asks for one whole response: fewer bytes,
  // packets and parses per turn.
  const wantDeltas = observer.onDelta !== undefined || persist;
  const clientTools = input.clientTools ?? [];
  const clientNames = clientTools.length > 0 ? new Set(clientTools.map((tool) => tool.name)) : undefined;
  const continuing = input.continueFromHistory === true;

  emit("agent_start", { text_length: input.text.length });
  const pending: ChatMessage[] = [];
  let stored = false;
  const flush = async (): Promise<void> => {
    if (!persist || pending.length === 0) return void (pending.length = 0);
    if (!stored) await deps.sessions.ensure(input.sessionId, input.channel);
    stored = true;
    await deps.sessions.append(input.sessionId, pending.splice(0));
  };
  /** The reply lands in the session and the turn completes (a block is a completed turn whose reply is its reason). */
  const complete = async (text: string, done: TurnOutcome, blocked?: TurnBlock, clientCalls?: ToolCall[]): Promise<TurnResult> => {
    pending.push({ role: "assistant", content: text });
    await flush();
    const { model, provider, usage, toolCalls, iterations } = done;
    const result: TurnResult = {
      sessionId: input.sessionId,
      text,
      model,
      provider,
      usage,
      toolCalls,
      iterations,
      messages: delivered,
    };
    if (clientCalls) result.clientToolCalls = clientCalls;
    if (blocked) {
      result.blocked = blocked;
      emit("middleware_block", { ...blocked });
      emit("turn_complete", { iterations, tool_calls: toolCalls.length, usage, blocked: true });
      emit("agent_end", { ok: true, blocked: true });
    } else {
      const client = clientCalls ? { client_tool_calls: clientCalls.length } : {};
      emit("turn_complete", { iterations, tool_calls: toolCalls.length, usage, ...client });
      emit("agent_end", { ok: true });
    }
    return result;
  };
  /**
   * A middleware block: nothing further runs (no later middleware, provider call, tool or outbound stage; no
   * evaluators). The reason goes to the user as it is (outbound middleware does not see it) and into the session.
   */
  const stop = (block: MiddlewareBlock, done: TurnOutcome): Promise<TurnResult> => {
    safely(() => observer.onDelta?.(block.reason));
    const { plugin, capability, stage: at, reason } = block;
    return complete(reason, done, { plugin, capability, stage: at, reason });
  };
  let partial = "";
  try {
    if (persist) validateSessionId(input.sessionId);
    if ((clientNames || continuing) && persist) {
      throw new PrxError("USAGE", "client tools and tool-result follow-ups need the client's own history", {
        hint: "pass historyOverride (the OpenAI-compatible API does)",
      });
    }
    // Before anything is stored: a turn that cannot reach a model leaves no trace.
    const choice = deps.resolveModelChoice({ provider: input.provider, model: input.model });
    const provider = deps.providers.resolve(choice.provider);
    let userText: string | undefined;
    if (!continuing) {
      // Built only for a middleware that sees it: the user id may be looked up on first read (the CLI's OS user).
      const inbound = seen("inbound")
        ? await middleware.run("inbound", {
            text: input.text,
            channel: input.channel,
            user_id: input.userId ?? null,
            session_id: input.sessionId,
            metadata: input.metadata ?? {},
          })
        : { text: input.text };
      if (inbound instanceof MiddlewareBlock) {
        // The user's message as the blocking middleware received it (earlier ones may have rewritten it).
        pending.push({ role: "user", content: inbound.envelope.text });
        return stop(inbound, { ...choice, usage: ZERO_USAGE, toolCalls: [], iterations: 0 });
      }
      userText = inbound.text;
    }
    const history = input.historyOverride ?? (await deps.sessions.history(input.sessionId, config.agent.max_history_messages));
    const query = userText ?? lastUserText(history);
    const memories = config.memory.auto_recall && query !== "" ? await autoRecall(deps, query, input.sessionId, emit) : [];
    const pendingContext = deps.extensions?.context?.(input) ?? [];
    const context = Array.isArray(pendingContext) ? pendingContext : await pendingContext;
    const memoryTokens = config.memory.recall_max_tokens;
    const prompt = { systemPrompt: config.agent.system_prompt, memories, memoryTokens, context, history };
    let messages = buildMessages(userText === undefined ? prompt : { ...prompt, user: userText });
    if (userText !== undefined) pending.push({ role: "user", content: userText });
    await flush();

    let usage = ZERO_USAGE;
    const toolRecords: TurnToolRecord[] = [];
    let finalText = "";
    let model = choice.model;
    let answeredBy = provider.name;
    let iterations = 0;
    let streamedFinal = false;
    let forClient: ToolCall[] | undefined;
    const sofar = () => ({ model, provider: answeredBy, usage, toolCalls: toolRecords, iterations });
    const offered = (): ToolSpec[] => {
      if (iterations >= config.agent.max_tool_iterations || input.toolChoice === "none") return [];
      return clientNames ? [...deps.tools.specs(), ...clientTools] : deps.tools.specs();
    };

    while (true) {
      if (signal.aborted) throw new PrxError("ABORTED", "turn cancelled");
      const request = await stage("llm_request", {
        messages,
        model: choice.model,
        temperature: config.agent.temperature,
        tools: offered(),
      });
      if (request instanceof MiddlewareBlock) return stop(request, sofar());
      iterations++;
      emit("llm_request", { model: request.model, messages: request.messages.length, iteration: iterations });
      partial = "";
      streamedFinal = false;
      const raw = await provider.chat({
        messages: request.messages,
        model: request.model,
        temperature: request.temperature,
        tools: request.tools.length ? request.tools : undefined,
        signal,
        ...(wantDeltas
          ? {
              onDelta: (delta: StreamDelta) => {
                if (delta.type !== "text") return;
                partial += delta.text;
                if (!streamDeltas) return;
                streamedFinal = true;
                safely(() => observer.onDelta?.(delta.text));
              },
            }
          : {}),
      });
      partial = "";
      answeredBy = raw.provider;
      const response = await stage("llm_response", {
        text: raw.text,
        tool_calls: raw.toolCalls,
        model: raw.model,
        usage: raw.usage ?? null,
      });
      if (response instanceof MiddlewareBlock) {
        model = raw.model;
        usage = addUsage(usage, raw.usage);
        return stop(response, sofar());
      }
      model = response.model;
      usage = addUsage(usage, response.usage);
      emit("llm_response", { model, tool_calls: response.tool_calls.length, iteration: iterations });

      // A call to a client tool ends the turn: the client runs it and sends the result back. Server calls in the same
      // response are not run (the client's conversation will not hold them; the model asks again if it still needs them).
      const clientCalls = clientNames ? response.tool_calls.filter((call) => clientNames.has(call.name)) : [];
      if (clientCalls.length > 0) {
        forClient = clientCalls;
        finalText = response.text;
        break;
      }
      if (response.tool_calls.length === 0 || iterations > config.agent.max_tool_iterations) {
        finalText = response.text || (response.tool_calls.length ? `(stopped after ${config.agent.max_tool_iterations} tool iterations)` : "");
        break;
      }
      const assistant: ChatMessage = { role: "assistant", content: response.text, tool_calls: response.tool_calls };
      const results: ChatMessage[] = [];
      try {
        await runToolRound(response.tool_calls, results, {
          call: (name, args, context) => deps.tools.call(name, args, context),
          context: { sessionId: input.sessionId, workspace: deps.workspace, signal, sendMessage },
          observer,
          emit,
          records: toolRecords,
        });
      } finally {
        // The call and its results land together, so history never holds unanswered tool calls.
        pending.push(assistant, ...results);
        await flush();
      }
      messages = [...messages, assistant, ...results];
    }

    const outbound = await stage("outbound", { text: finalText, channel: input.channel, session_id: input.sessionId });
    if (outbound instanceof MiddlewareBlock) return stop(outbound, sofar());
    // Providers that do not stream, and buffered turns, deliver the final text as one delta.
    if (!streamedFinal && outbound.text) safely(() => observer.onDelta?.(outbound.text));
    // The client runs its tools and comes back: evaluators wait for the turn's real end.
    if (forClient) return complete(outbound.text, sofar(), undefined, forClient);
    const result = await complete(outbound.text, sofar());
    const after = deps.extensions?.afterTurn?.(input, result);
    if (after) await after.catch((error) => emit("error", { stage: "after_turn", message: errorMessage(error) }));
    return result;
  } catch (error) {
    const failure = signal.aborted ? new PrxError("ABORTED", "turn cancelled", { cause: error }) : toPrxError(error);
    if (partial) pending.push({ role: "assistant", content: `${partial}\n[interrupted: ${failure.message}]` });
    await flush();
    emit("error", { code: failure.code, message: failure.message });
    emit("agent_end", { ok: false, code: failure.code });
    throw failure;
  }
}
