import { USER_MESSAGE_MAX_CHARS } from "./limits.ts";
import { MiddlewareBlock, type Envelopes, type Stage } from "../contracts/envelopes.ts";
import { PrxError, errorMessage, toPrxError } from "../core/errors.ts";
import type { ChatMessage, ChatRequest, ToolCall } from "../providers/types.ts";
import { emitCompletion, lifecycleEmitter, lifecycleWanted } from "./lifecycle.ts";
import { safely } from "./observer.ts";
import { offeredTools, planTurn, type TurnPlan } from "./plan.ts";
import { prepareMedia } from "../media/prepare.ts";
import { modelFacts } from "../providers/model-facts.ts";
import { keepMedia, withTranscripts } from "./media.ts";
import { buildMessages, lastUserText } from "./prompt.ts";
import { compactSession, summaryContext } from "./compaction.ts";
import { cutToolResults, fitPrompt, messageTokens, promptTokens, replyTokens, toolsTokens, windowBudget, type WindowBudget } from "./context-window.ts";
import { autoRecall } from "./recall.ts";
import { ReplyStream } from "./reply-stream.ts";
import { validateSessionId } from "./sessions.ts";
import { runToolRound } from "./tool-round.ts";
import { TurnTranscript } from "./transcript.ts";
import type { LifecycleName } from "../contracts/lifecycle.ts";
import type { LifecycleEmit, TurnBlock, TurnDeps, TurnInput, TurnObserver, TurnResult } from "./types.ts";
import type { ToolContext } from "../tools/types.ts";
import { addUsage, ZERO_USAGE } from "./usage.ts";
import { checkBudget, senderOf, type Spender } from "./budget.ts";
import { dayIn } from "./calendar.ts";
import { addMessageUsage, messageUsage } from "./cost.ts";
import type { MessageUsage } from "../storage/types.ts";
import { traceTurn, type TurnTrace } from "./turn-trace.ts";

const NO_CONTEXT: string[] = [];

/**
 * One turn of the agent: inbound middleware -> prompt -> loop { llm_request -> provider -> llm_response -> tools }
 * -> outbound middleware -> complete (or fail). The session keeps everything said, even when the turn fails part-way;
 * a turn that cannot start (bad session id, unknown provider or model) stores nothing; a session is created with its
 * first message. `plan`: the model choice if the caller resolved it (else the turn does).
 */
export function executeTurn(deps: TurnDeps, input: TurnInput, plan?: TurnPlan): Promise<TurnResult> {
  if (deps.tracer?.enabled) return traceTurn(deps.tracer, input, (trace) => new Turn(deps, input, trace).run(plan));
  return new Turn(deps, input).run(plan);
}

/** What a finished turn reports besides its text. */
type TurnOutcome = Pick<TurnResult, "model" | "provider" | "usage" | "toolCalls" | "iterations">;

/** The model's last answer of a turn: its text, and the client's tool calls when it asked for some. */
type Answer = { text: string; clientCalls?: ToolCall[]; formatProblem?: string };

/** How many times an answer that does not fit the requested format is sent back to the model before the turn gives up. */
export const ANSWER_FORMAT_CORRECTIONS = 1;

const formatCorrection = (problem: string) =>
  `Your answer does not fit the required format: ${problem}. Answer again with only the required JSON, nothing else.`;

class Turn {
  private readonly signal: AbortSignal;
  private readonly observer: TurnObserver;
  private readonly emit: LifecycleEmit;
  private readonly transcript: TurnTranscript;
  private readonly stream: ReplyStream;
  /** Intermediate messages delivered during the turn. */
  private readonly delivered: string[] = [];
  /** The user's message of this turn as the model reads it (a follow-up: the last one in its history). */
  private userText = "";
  private readonly outcome: TurnOutcome = { model: "", provider: "", usage: ZERO_USAGE, toolCalls: [], iterations: 0 };
  /** Some message of the conversation has images or audio (a text-only turn never prepares media). */
  private hasMedia = false;
  /** What the model's context window allows this turn's prompts. */
  private window: WindowBudget | null = null;
  /** Usage of the model calls since the last assistant message was kept: it goes with the next one. */
  private unkept: MessageUsage | undefined;

  constructor(
    private readonly deps: TurnDeps,
    private readonly input: TurnInput,
    /** The turn's spans, when the host's telemetry is on. */
    private readonly trace?: TurnTrace,
  ) {
    this.signal = input.signal ?? new AbortController().signal;
    this.observer = input.observer ?? {};
    this.emit = lifecycleEmitter(deps.events, input);
    const stored = !input.historyOverride;
    const usage = deps.usage ? { recorder: deps.usage(), charge: () => ({ ...this.spender(), day: dayIn(deps.config.budget.time_zone, this.now()) }) } : undefined;
    this.transcript = new TurnTranscript(deps.sessions, input.sessionId, input.channel, stored, usage, input.agent, input.rerunnable);
    // Streaming raw deltas would bypass llm_response/outbound transformations, so buffer when they are active.
    const { middleware } = deps;
    // An answer with a format is checked (and maybe corrected) before anyone sees it.
    const live = !input.sampling?.format && (!middleware.active || (!middleware.active("llm_response") && !middleware.active("outbound")));
    this.stream = new ReplyStream(this.observer, { live, stored });
  }

  async run(given: TurnPlan | undefined): Promise<TurnResult> {
    const { deps, input } = this;
    if (this.emits("agent_start")) this.emit("agent_start", { text_length: input.text.length });
    try {
      const plan = this.start(given);
      // Inbound middleware, once per admitted turn: a follow-up's user message passed it in the request before.
      const continuing = input.continueFromHistory === true || input.rerunnable?.resumed === true;
      const heard = input.media?.some((ref) => ref.kind === "audio")
        ? await withTranscripts(input.text, input.media, deps.transcribe, this.signal)
        : input.text;
      // a stage no middleware sees is skipped: its envelope would come back as it went
      const inbound = continuing || !this.sees("inbound") ? undefined : await deps.middleware.run("inbound", inboundEnvelope(input, heard));
      // Blocked: the user's message lands as the blocking middleware received it (earlier ones may have rewritten it).
      if (inbound instanceof MiddlewareBlock) return await this.stop(inbound, inbound.envelope.text);
      this.outcome.provider = plan.provider.name;
      // a turn over budget is refused before anything of it is stored
      const check = this.budget();
      if (check) await check;
      const messages = await this.prompt(plan, continuing ? undefined : (inbound?.text ?? heard));
      const answer = await this.converse(plan, messages);
      if (answer instanceof MiddlewareBlock) return await this.stop(answer);
      if (!this.sees("outbound")) return await this.deliver(answer.text, answer.clientCalls, answer.formatProblem);
      const { channel, sessionId: session_id } = input;
      const outbound = await deps.middleware.run("outbound", { text: answer.text, channel, session_id });
      if (outbound instanceof MiddlewareBlock) return await this.stop(outbound);
      return await this.deliver(outbound.text, answer.clientCalls, answer.formatProblem);
    } catch (error) {
      throw await this.fail(error);
    }
  }

  /** Before anything is stored: a turn that cannot reach a model leaves no trace. */
  private start(given: TurnPlan | undefined): TurnPlan {
    const { input } = this;
    const persist = !input.historyOverride;
    if (persist) validateSessionId(input.sessionId);
    if (input.text.length > USER_MESSAGE_MAX_CHARS) {
      throw new PrxError("LIMIT_EXCEEDED", `the message is ${input.text.length} characters, more than ${USER_MESSAGE_MAX_CHARS}`, {
        hint: "shorten it, or send a long document as a file the assistant reads (file_read)",
      });
    }
    if (persist && ((input.clientTools?.length ?? 0) > 0 || input.continueFromHistory === true)) {
      throw new PrxError("USAGE", "client tools and tool-result follow-ups need the client's own history", {
        hint: "pass historyOverride (the OpenAI-compatible API does)",
      });
    }
    const plan = given ?? planTurn(this.deps, input);
    this.outcome.model = plan.choice.model;
    this.outcome.provider = plan.choice.provider;
    return plan;
  }

  /**
   * History, recalled memories, plugin context and the session's summary around the user's message, which lands in
   * the session. A prompt past compaction.compact_at of the window first has the older history summarised.
   */
  private async prompt(plan: TurnPlan, userText: string | undefined): Promise<ChatMessage[]> {
    const { deps, input } = this;
    const { config } = deps;
    const stored = !input.historyOverride;
    // Plugin context needs only the input: asked first, it is gathered while history and memories are read.
    const pendingContext = deps.extensions?.context?.(input) ?? NO_CONTEXT;
    const pendingSkills = deps.skills?.(input.skills);
    const local = async () => {
      // a turn run again after another turn wrote to its session: the history that ends with its own messages
      const at = input.rerunnable?.resumed ? input.rerunnable.at : undefined;
      const reading = input.historyOverride ?? deps.sessions.history(input.sessionId, config.agent.max_history_messages, at);
      const summarised = stored ? deps.sessions.summary(input.sessionId) : null;
      const history = await reading;
      const summary = await summarised;
      const query = userText ?? lastUserText(history);
      this.userText = query;
      // a turn cut off and run again goes on after its stored tool rounds: they count toward its iterations
      if (input.rerunnable?.resumed) this.outcome.iterations = roundsSinceUser(history);
      const recall = config.memory.auto_recall && query !== "";
      const memories = recall ? await autoRecall(deps, query, input.sessionId, this.emit) : [];
      return { history, memories, summary };
    };
    const [{ history, memories, summary }, pluginContext] = Array.isArray(pendingContext)
      ? [await local(), pendingContext]
      : await Promise.all([local(), pendingContext]);
    const skills = pendingSkills ? await pendingSkills : "";
    const context = skills === "" ? pluginContext : [skills, ...pluginContext];
    const memoryTokens = config.memory.recall_max_tokens;
    let media = userText === undefined ? undefined : input.media;
    if (media?.length && !input.historyOverride && deps.media) media = await keepMedia(deps.media(), media);
    const build = (past: ChatMessage[], summarised: typeof summary) => {
      const withSummary = summarised ? [...context, summaryContext(summarised)] : context;
      const parts = { systemPrompt: input.systemPrompt ?? config.agent.system_prompt, memories, memoryTokens, context: withSummary, history: past };
      return buildMessages(userText === undefined ? parts : { ...parts, user: userText, media });
    };
    let messages = build(history, summary);
    this.window = windowBudget(config, plan.choice.provider, plan.choice.model);
    // a turn run again from its own message on does not compact: compaction summarises the session up to its end,
    // which may hold other turns' messages after this one's (its prompt is fitted by leaving the oldest out instead)
    const anchored = input.rerunnable?.at !== undefined;
    if (stored && !anchored && config.compaction.enabled && history.length > 0) messages = await this.compactIfFull(plan, messages, build);
    this.hasMedia = (media?.length ?? 0) > 0 || messages.some((message) => message.media !== undefined);
    if (userText !== undefined) this.transcript.add(media?.length ? { role: "user", content: userText, media } : { role: "user", content: userText });
    await this.transcript.flush();
    return messages;
  }

  /**
   * A prompt past compaction.compact_at of the window: the older history is summarised and the prompt rebuilt from
   * the summary and the recent messages. A failed compaction leaves the session as it was (the prompt is fitted by
   * leaving the oldest messages out instead).
   */
  private async compactIfFull(
    plan: TurnPlan,
    messages: ChatMessage[],
    build: (history: ChatMessage[], summary: Awaited<ReturnType<TurnDeps["sessions"]["summary"]>>) => ChatMessage[],
  ): Promise<ChatMessage[]> {
    const { deps, input } = this;
    const budget = this.window!;
    const ratio = deps.contextRatios?.get(input.sessionId) ?? 1;
    const tools = toolsTokens(offeredTools(plan, deps.tools, false));
    if ((promptTokens(messages) + tools) * ratio <= budget.compactAt) return messages;
    try {
      const last = messages.at(-1)!;
      const reserve = last.role === "user" ? messageTokens(last) : 0;
      const request = { sessionId: input.sessionId, provider: plan.provider, providerName: plan.choice.provider, model: plan.choice.model, signal: this.signal, reserve };
      const onError = (stage: string, message: string) => this.emit("error", { stage, message });
      const done = await compactSession(deps, { ...request, onError });
      if (!done) return messages;
      this.outcome.usage = addUsage(this.outcome.usage, done.usage);
      const recent = await deps.sessions.history(input.sessionId, deps.config.agent.max_history_messages);
      return build(recent, done.summary);
    } catch (error) {
      if (this.signal.aborted) throw error;
      this.emit("error", { stage: "compaction", message: errorMessage(error) });
      return messages;
    }
  }

  /** Model calls and tool rounds until the model answers without asking for a server tool, or a middleware blocks. */
  private async converse(plan: TurnPlan, prompt: ChatMessage[]): Promise<Answer | MiddlewareBlock> {
    const max = this.maxIterations();
    const tokenBudget = this.input.tokenBudget;
    const format = this.input.sampling?.format;
    let corrections = 0;
    let messages = prompt;
    while (true) {
      const response = await this.askModel(plan, messages);
      if (response instanceof MiddlewareBlock) return response;
      // A call to a client tool ends the turn: the client runs it and sends the result back. Server calls in the same
      // response are not run (the client's conversation will not hold them; the model asks again if it still needs them).
      const clientNames = plan.clientNames;
      const clientCalls = clientNames ? response.tool_calls.filter((call) => clientNames.has(call.name)) : [];
      if (clientCalls.length > 0) return { text: response.text, clientCalls };
      if (response.tool_calls.length === 0 || this.outcome.iterations > max) {
        const text = response.text || (response.tool_calls.length ? `(stopped after ${max} tool iterations)` : "");
        const problem = format?.check(text) ?? null;
        if (problem === null) return { text };
        if (corrections === ANSWER_FORMAT_CORRECTIONS || this.outcome.iterations > max) return { text, formatProblem: problem };
        corrections++;
        messages = [...messages, { role: "assistant", content: text }, { role: "user", content: formatCorrection(problem) }];
        continue;
      }
      messages = [...messages, ...(await this.toolRound(response))];
      if (tokenBudget !== undefined && this.outcome.usage.total_tokens >= tokenBudget) {
        return { text: `(stopped: the token budget of ${tokenBudget} was spent after ${this.outcome.iterations} model calls)` };
      }
    }
  }

  private maxIterations(): number {
    return this.input.maxIterations ?? this.deps.config.agent.max_tool_iterations;
  }

  /** One model call: llm_request middleware -> provider -> llm_response middleware. */
  private async askModel(plan: TurnPlan, messages: ChatMessage[]): Promise<Envelopes["llm_response"] | MiddlewareBlock> {
    const { deps, outcome, stream } = this;
    if (this.signal.aborted) throw new PrxError("ABORTED", "turn cancelled");
    const sampling = this.input.sampling;
    const temperature = sampling?.temperature ?? deps.config.agent.temperature;
    const tools = offeredTools(plan, deps.tools, outcome.iterations >= this.maxIterations());
    const request = await deps.middleware.run("llm_request", { messages, model: plan.choice.model, temperature, tools });
    if (request instanceof MiddlewareBlock) return request;
    // the turn's first call was checked before its message was stored; later ones (after tools) are checked again
    const check = outcome.iterations > 0 ? this.budget() : undefined;
    if (check) await check;
    outcome.iterations++;
    if (this.emits("llm_request")) this.emit("llm_request", { model: request.model, messages: request.messages.length, iteration: outcome.iterations });
    // the correction is learned per stored session: a stateless turn's session id names no conversation
    const ratios = this.input.historyOverride ? undefined : deps.contextRatios;
    const ratio = ratios?.get(this.input.sessionId) ?? 1;
    const toolCost = toolsTokens(request.tools);
    const cut = cutToolResults(request.messages, deps.config.compaction.tool_result_max_tokens);
    const fitted = fitPrompt(cut, this.window?.limit ?? Number.POSITIVE_INFINITY, ratio, toolCost);
    const sent = this.hasMedia ? await this.withMedia(plan, fitted.messages, request.model) : fitted.messages;
    stream.begin();
    const asked: ChatRequest = {
      messages: sent,
      model: request.model,
      temperature: request.temperature,
      tools: request.tools.length ? request.tools : undefined,
      ...(sampling?.maxTokens !== undefined ? { maxTokens: replyTokens(deps.config, plan.choice.provider, request.model, sampling.maxTokens) } : {}),
      ...(sampling?.format ? { responseFormat: sampling.format.request } : {}),
      signal: this.signal,
      ...(stream.wanted ? { onDelta: stream.onDelta } : {}),
    };
    const raw = await (this.trace ? this.trace.chat(plan.choice.provider, asked, () => plan.provider.chat(asked)) : plan.provider.chat(asked));
    stream.end();
    ratios?.learn(this.input.sessionId, fitted.tokens, raw.usage?.prompt_tokens);
    outcome.provider = raw.provider;
    if (raw.usage && deps.usage) this.unkept = addMessageUsage(this.unkept, messageUsage(deps.config, raw.provider, raw.model, raw.usage));
    const { text, toolCalls: tool_calls, model, usage } = raw;
    const response = await deps.middleware.run("llm_response", { text, tool_calls, model, usage: usage ?? null });
    const blocked = response instanceof MiddlewareBlock;
    outcome.model = blocked ? raw.model : response.model;
    outcome.usage = addUsage(outcome.usage, blocked ? raw.usage : response.usage);
    if (blocked || !this.emits("llm_response")) return response;
    this.emit("llm_response", {
      model: outcome.model,
      provider: raw.provider,
      tool_calls: response.tool_calls.length,
      iteration: outcome.iterations,
      ...(response.usage ? { usage: response.usage } : {}),
    });
    return response;
  }

  /** Images with their bytes for a model that sees them, else (and once older than the configured turns) as notes. */
  private withMedia(plan: TurnPlan, messages: ChatMessage[], model: string): Promise<ChatMessage[]> {
    const { config } = this.deps;
    const store = this.deps.media;
    return prepareMedia(messages, {
      vision: modelFacts(config, plan.choice.provider, model).vision,
      imageTurns: config.agent.image_history_turns,
      ...(config.providers[plan.choice.provider]?.image_urls === "fetch"
        ? {
            // loaded with the first image URL to fetch: the outbound guard brings node:net and node:dns (~5 ms)
            fetchUrl: async (ref) => {
              const { fetchImageUrl, imagePolicy } = await import("../media/fetch-image.ts");
              return fetchImageUrl(ref, imagePolicy(config.tools.outbound), { signal: this.input.signal });
            },
          }
        : {}),
      load: async (sha256) => {
        const found = store ? await store().get(sha256) : null;
        return found ? Buffer.from(found.data.buffer, found.data.byteOffset, found.data.byteLength).toString("base64") : null;
      },
    });
  }

  /** The server's tool calls of one response: the calls and their results, for the conversation and the session. */
  private async toolRound(response: Envelopes["llm_response"]): Promise<ChatMessage[]> {
    const { deps, input } = this;
    const assistant: ChatMessage = { role: "assistant", content: response.text, tool_calls: response.tool_calls };
    const results: ChatMessage[] = [];
    const sendMessage = (text: string) => {
      this.delivered.push(text);
      safely(() => this.observer.onMessage?.(text));
    };
    try {
      await runToolRound(response.tool_calls, results, {
        call: (name, args, context) => deps.tools.call(name, args, context),
        context: {
          sessionId: input.sessionId,
          workspace: deps.workspace,
          signal: this.signal,
          sendMessage,
          memory: deps.memory(),
          origin: originOf(input),
          userMessage: { text: this.userText, userId: input.userId ?? null },
        },
        observer: this.observer,
        emit: this.emit,
        records: this.outcome.toolCalls,
        ...(this.trace ? { trace: this.trace } : {}),
      });
    } finally {
      // The call and its results land together, so history never holds unanswered tool calls; written as the round
      // completes, so a turn run again after its process died goes on after it and runs none of its calls again.
      this.transcript.addAnswer(assistant, this.takeUsage(), ...results);
      await this.transcript.flush();
    }
    return [assistant, ...results];
  }

  /** The reply after outbound middleware: delivered whole unless it streamed, then the turn completes. */
  private async deliver(text: string, clientCalls: ToolCall[] | undefined, formatProblem?: string): Promise<TurnResult> {
    // Providers that do not stream, and buffered turns, deliver the final text as one delta (unless it failed its format).
    if (formatProblem !== undefined) {
      const result = await this.complete(text);
      result.formatProblem = formatProblem;
      return result;
    }
    if (!this.stream.shown && text) safely(() => this.observer.onDelta?.(text));
    // The client runs its tools and comes back: evaluators wait for the turn's real end.
    if (clientCalls) return this.complete(text, undefined, clientCalls);
    const result = await this.complete(text);
    const after = this.deps.extensions?.afterTurn?.(this.input, result);
    if (after) await after.catch((error) => this.emit("error", { stage: "after_turn", message: errorMessage(error) }));
    return result;
  }

  /**
   * A middleware block: nothing further runs (no later middleware, provider call, tool or outbound stage; no
   * evaluators). The reason goes to the user as it is (outbound middleware does not see it) and into the session.
   */
  private stop(block: MiddlewareBlock, userText?: string): Promise<TurnResult> {
    if (userText !== undefined) this.transcript.add({ role: "user", content: userText });
    safely(() => this.observer.onDelta?.(block.reason));
    const { plugin, capability, stage, reason } = block;
    return this.complete(reason, { plugin, capability, stage, reason });
  }

  /** The reply lands in the session and the turn completes (a block is a completed turn whose reply is its reason). */
  private async complete(text: string, blocked?: TurnBlock, clientCalls?: ToolCall[]): Promise<TurnResult> {
    this.transcript.addAnswer({ role: "assistant", content: text }, this.takeUsage());
    await this.transcript.flush(true);
    const { model, provider, usage, toolCalls, iterations } = this.outcome;
    const messages = this.delivered;
    const result: TurnResult = { sessionId: this.input.sessionId, text, model, provider, usage, toolCalls, iterations, messages };
    if (clientCalls) result.clientToolCalls = clientCalls;
    if (blocked) result.blocked = blocked;
    emitCompletion(this.emit, result, this.deps.events);
    return result;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Whether anyone listens to lifecycle event `name` (its payload is built only then). */
  private emits(name: LifecycleName): boolean {
    return lifecycleWanted(this.deps.events, name);
  }

  /** Whether some middleware sees `stage` (a runner that cannot tell is asked every time). */
  private sees(stage: Stage): boolean {
    return this.deps.middleware.active?.(stage) !== false;
  }

  /** Sender totals are kept while sender budgets are configured (a CLI turn's user id is looked up when read). */
  private spender(): Spender {
    const { channel } = this.input;
    const senders = this.deps.config.budget.senders;
    // userId is read only here: a CLI turn's getter looks the OS user up (node:os) on first read
    const spender: Spender = { channel, sender: hasKeys(senders) ? senderOf(channel, this.input.userId) : null };
    if (this.input.agent !== undefined) spender.agent = this.input.agent;
    return spender;
  }

  /** BUDGET_EXCEEDED when a budget that applies to this turn is spent; nothing is read when none is set. */
  private budget(): Promise<void> | undefined {
    const { deps } = this;
    if (!deps.usage) return undefined;
    const budget = deps.config.budget;
    if (budget.daily_usd === undefined && budget.monthly_usd === undefined && !hasKeys(budget.channels) && !hasKeys(budget.senders)) {
      return undefined;
    }
    return checkBudget(budget, deps.usage(), this.spender(), this.now());
  }

  private takeUsage(): MessageUsage | undefined {
    const usage = this.unkept;
    this.unkept = undefined;
    return usage;
  }

  /** The session keeps what the failed model call had streamed, marked interrupted; the failure is typed. */
  private async fail(error: unknown): Promise<PrxError> {
    const failure = this.signal.aborted ? new PrxError("ABORTED", "turn cancelled", { cause: error }) : toPrxError(error);
    const partial = this.stream.partial;
    if (partial) this.transcript.addAnswer({ role: "assistant", content: `${partial}\n[interrupted: ${failure.message}]` }, this.takeUsage());
    else this.transcript.addSpent(this.takeUsage());
    await this.transcript.flush(true);
    this.emit("error", { code: failure.code, message: failure.message });
    this.emit("agent_end", { ok: false, code: failure.code });
    return failure;
  }
}

/** Model calls that asked for tools after the last user message (the stored rounds of a turn cut off). */
function roundsSinceUser(history: readonly ChatMessage[]): number {
  let rounds = 0;
  for (let i = history.length - 1; i >= 0 && history[i]!.role !== "user"; i--) if (history[i]!.tool_calls?.length) rounds++;
  return rounds;
}

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

function inboundEnvelope(input: TurnInput, text: string): Envelopes["inbound"] {
  return {
    text,
    channel: input.channel,
    // Read only when a middleware sees the envelope: the CLI looks its OS user up on first read.
    get user_id() {
      return input.userId ?? null;
    },
    session_id: input.sessionId,
    metadata: input.metadata ?? {},
  };
}

/** The channel and chat a turn's message came from (channels put chat_id and thread_id in the metadata). */
function originOf(input: TurnInput): NonNullable<ToolContext["origin"]> {
  const meta = input.metadata ?? {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : typeof value === "number" ? String(value) : undefined);
  const chatId = text(meta.chat_id);
  const threadId = text(meta.thread_id);
  return {
    channel: input.channel,
    ...(chatId === undefined ? {} : { chatId }),
    ...(threadId === undefined ? {} : { threadId }),
    ...(input.userId ? { userId: input.userId } : {}),
  };
}
