import type { AgentHost } from "../agent/index.ts";
import type { ApprovalBroker } from "../agent/approvals/broker.ts";
import type { PendingApproval } from "../agent/approvals/types.ts";
import { SESSION_ID_PATTERN } from "../agent/sessions.ts";
import type { Binding, ChannelConfig } from "../config/schema.ts";
import { bindAgent, MAIN_AGENT } from "../agents/index.ts";
import { errorMessage } from "../core/errors.ts";
import { sha256Hex } from "../core/ids.ts";
import type { Logger } from "../core/logger.ts";
import { decideAccess } from "./access.ts";
import { ATTACHMENT_FETCH_TIMEOUT_MS, CHANNEL_MAX_PENDING, STARTED_TURN_TAIL_MESSAGES, TYPING_INTERVAL_MS } from "./limits.ts";
import { USER_MESSAGE_MAX_CHARS } from "../agent/limits.ts";
import { resumeOf, startedTurn, type StartedTurn } from "../agent/started-turn.ts";
import { inboundMedia } from "./media.ts";
import { sendLinkedFiles } from "./reply-files.ts";
import type { PairingStore } from "../storage/types.ts";
import { inChildSpan, inSpan, Prx, SpanKind } from "../telemetry/index.ts";
import { splitMessage } from "./split.ts";
import { chatKeyOf, type ChannelStore, type InboxEntry } from "./store.ts";
import { InboundMessageParser } from "./fast-accept.ts";
import type { Channel, InboundMessage } from "./types.ts";

/**
 * The session of a chat with an agent: (channel, chat, thread), after `<agent>@` for an agent other than main (a chat
 * bound to another agent starts a conversation of its own), readable when the ids allow it, else hashed.
 */
export function sessionIdOf(message: InboundMessage, agent = MAIN_AGENT): string {
  const chat = chatKeyOf(message);
  const key = agent === MAIN_AGENT ? chat : `${agent}@${chat}`;
  return SESSION_ID_PATTERN.test(key) ? key : `${message.channel}:${sha256Hex(key).slice(0, 40)}`;
}

export interface RunnerStats {
  inbound: number;
  answered: number;
  duplicates: number;
  ignored: number;
  refused: number;
  failed: number;
  lastInbound: number | null;
  lastOutbound: number | null;
}

export interface RunnerOptions {
  channel: Channel;
  /**
   * With a tracer that is on, each message is a trace: its turn and its delivery are spans of it. Its sessions answer
   * a message whose turn had started before a restart (a host without them runs that turn on from the session).
   */
  host: Pick<AgentHost, "runTurn"> & Partial<Pick<AgentHost, "tracer" | "sessions">>;
  store: ChannelStore;
  pairings: PairingStore;
  config: ChannelConfig;
  /** The workspace's [[bindings]]: which agent answers which chat (none: main answers everything). */
  bindings?: readonly Binding[];
  logger: Logger;
  /** Called after every change of the stats (the process reports them to its supervisor). */
  onStats?: (stats: RunnerStats) => void;
  /**
   * Called with the reply parts once a message is answered: a turn's reply as soon as it is stored, before its
   * delivery is recorded (the webhook channel's synchronous replies, which the response delivers).
   */
  onAnswered?: (messageId: string, parts: string[]) => void;
  /** The workspace whose files a reply links are sent with it (platforms with capabilities.attachments). */
  workspace?: string;
  /** How often typing is re-sent while a turn runs; defaults to TYPING_INTERVAL_MS. */
  typingIntervalMs?: number;
  /**
   * Tool calls that need the owner's approval are asked in the chat and answered there ("yes 4821") by an owner:
   * `[channels.<name>] owners` or a pairing marked owner. Without it, such calls wait for the API and the console.
   */
  approvals?: Pick<ApprovalBroker, "byCode" | "decide">;
  /**
   * One line per pairing request, pairing let through, refused sender and failed message (the foreground `prx
   * channel run` prints them); without it they are logged at info (errors at error, as always).
   */
  onEvent?: (line: string) => void;
  /** Called with the count of messages in flight whenever it changes (`prx channel run`: its JIT policy, its idle collection). */
  onInFlight?: (count: number) => void;
}

/** An owner's answer to an approval asked in a chat: "yes 4821", "no 4821", "always 4821" (y / n / a too). */
const APPROVAL_ANSWER = /^\s*(yes|y|no|n|always|a)\s+(\d{4})\s*[.!]?\s*$/i;

/**
 * Between a platform adapter and the agent: stores every message once by its platform id, applies the access policy,
 * runs one turn at a time per chat through the host's executeTurn (in order), shows typing meanwhile, splits the reply
 * at the platform's limit and records each part delivered, so a process killed mid-turn or mid-delivery resumes where
 * it stopped and never answers a message twice.
 */
export class ChannelRunner {
  readonly stats: RunnerStats = {
    inbound: 0,
    answered: 0,
    duplicates: 0,
    ignored: 0,
    refused: 0,
    failed: 0,
    lastInbound: null,
    lastOutbound: null,
  };
  private readonly chains = new Map<string, Promise<void>>();
  private pending = 0;
  private capacityWaiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];
  private closing = false;
  /** Senders given a pairing code by this process: their first message let through says the pairing was approved. */
  private readonly awaitingPairing = new Set<string>();

  constructor(private readonly o: RunnerOptions) {}

  /** Messages stored and not answered yet. */
  get inFlight(): number {
    return this.pending;
  }

  /** Resume what a previous process left unanswered (killed mid-turn or mid-delivery), in order per chat. */
  async resume(): Promise<number> {
    const open = await this.o.store.open();
    for (const entry of open) this.enqueue(entry);
    if (open.length > 0) this.o.logger.info(`resuming ${open.length} unanswered message(s) from before the restart`);
    return open.length;
  }

  /** The adapter's callback: resolves once the message is stored (or refused), not when it is answered. */
  readonly onMessage = async (raw: InboundMessage): Promise<void> => {
    const parsed = InboundMessageParser.safeParse(raw);
    if (!parsed.success) {
      this.o.logger.warn("dropped a malformed inbound message", { issue: parsed.error.issues[0]?.message });
      return;
    }
    const message = parsed.data;
    this.stats.inbound += 1;
    this.stats.lastInbound = Date.now();
    if (message.text.length > USER_MESSAGE_MAX_CHARS) {
      if (!(await this.o.store.admit(message, "done"))) return this.duplicate(message);
      this.o.logger.warn("refused an oversized message", { id: message.id, limit: USER_MESSAGE_MAX_CHARS });
      await this.notify(message, `That message is too long (over ${USER_MESSAGE_MAX_CHARS} characters); please shorten it.`);
      return;
    }
    if (await this.approvalAnswer(message)) return;
    const decision = await decideAccess(message, this.o.config, this.o.pairings);
    if (decision.kind === "ignore") {
      if (!(await this.o.store.admit(message, "ignored"))) return this.duplicate(message);
      this.stats.ignored += 1;
      this.o.logger.debug(`ignored message ${message.id}: ${decision.reason}`);
      this.answered(message, []);
      return this.changed();
    }
    if (decision.kind === "refuse") {
      if (!(await this.o.store.admit(message, "done"))) return this.duplicate(message);
      this.stats.refused += 1;
      if (decision.pairingCode) {
        this.awaitingPairing.add(`${message.channel}\n${message.senderId}`);
        this.event(`pairing requested by ${message.senderDisplay} (${message.senderId}): prx channel pair approve ${decision.pairingCode}`);
      } else this.event(`refused message from ${message.senderId}: ${decision.reason}`);
      await this.notify(message, decision.notice);
      return;
    }
    if (this.awaitingPairing.delete(`${message.channel}\n${message.senderId}`)) {
      this.event(`pairing of ${message.senderDisplay} (${message.senderId}) approved: answering from now on`);
    }
    if (!message.text.trim() && !message.attachments?.length) {
      if (!(await this.o.store.admit(message, "ignored"))) return this.duplicate(message);
      this.answered(message, []);
      return;
    }
    if (!(await this.o.store.admit(message))) return this.duplicate(message);
    this.enqueue({ message, state: "received", reply: null, partsSent: 0 });
  };

  /** The sender is an owner: `[channels.<name>] owners` or a pairing approved as owner. */
  private async fromOwner(message: InboundMessage): Promise<boolean> {
    return this.o.config.owners.includes(message.senderId) || (await this.o.pairings.isOwner(message.channel, message.senderId));
  }

  /**
   * A message answering an approval asked in its chat: an owner's answer decides it (and is acknowledged), anyone
   * else's is ignored. False when the message is no such answer (it is then an ordinary message).
   */
  private async approvalAnswer(message: InboundMessage): Promise<boolean> {
    const approvals = this.o.approvals;
    const answer = approvals ? APPROVAL_ANSWER.exec(message.text) : null;
    if (!approvals || !answer) return false;
    const pending = await approvals.byCode(message.channel, chatKeyOf(message), answer[2]!);
    if (!pending) return false;
    if (!(await this.fromOwner(message))) {
      if (!(await this.o.store.admit(message, "ignored"))) return this.duplicate(message).then(() => true);
      this.stats.ignored += 1;
      this.o.logger.info(`ignored an approval answer from ${message.senderId}: only an owner answers approvals`);
      this.answered(message, []);
      this.changed();
      return true;
    }
    if (!(await this.o.store.admit(message, "done"))) return this.duplicate(message).then(() => true);
    const word = answer[1]!.toLowerCase();
    const decision = word.startsWith("y") ? "allow" : word.startsWith("a") ? "allow_session" : "deny";
    try {
      await approvals.decide(pending.id, decision, `owner:${message.senderId}`, null);
      await this.notify(message, decision === "deny" ? `Denied: ${pending.tool}.` : `Approved: ${pending.tool}.`);
    } catch (error) {
      await this.notify(message, `That approval could not be answered: ${errorMessage(error).split("\n")[0]}`);
    }
    return true;
  }

  /** The question asked in the chat when a tool call of its turn needs the owner's approval. */
  private async askOwner(message: InboundMessage, pending: PendingApproval): Promise<void> {
    const seconds = Math.max(1, Math.round((pending.expiresAt - Date.now()) / 1000));
    const text =
      `Approval needed: ${pending.tool} ${pending.preview}\n` +
      `Reply "yes ${pending.code}" to run it, "no ${pending.code}" to refuse, "always ${pending.code}" to allow ${pending.tool} ` +
      `for the rest of this chat. Only the owner's answer counts; no answer in ${seconds} s is a refusal.`;
    for (const part of splitMessage(text, this.o.channel.capabilities.maxMessageLength)) {
      await this.o.channel.send({ chatId: message.chatId, threadId: message.threadId, replyTo: message.id, text: part });
    }
    this.stats.lastOutbound = Date.now();
  }

  private event(line: string): void {
    if (this.o.onEvent) this.o.onEvent(line);
    else this.o.logger.info(line);
  }

  /** Resolves when fewer than CHANNEL_MAX_PENDING messages wait (adapters stop reading the platform meanwhile). */
  waitForCapacity(): Promise<void> {
    if (this.pending < CHANNEL_MAX_PENDING) return Promise.resolve();
    return new Promise((resolve) => this.capacityWaiters.push(resolve));
  }

  /** Resolves once nothing is pending (tests, graceful stop). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async duplicate(message: InboundMessage): Promise<void> {
    this.stats.duplicates += 1;
    this.o.logger.debug(`message ${message.id} was delivered again; it is answered once`);
    // a waiting caller (the webhook channel's synchronous reply) gets the stored answer; an open one settles later
    const entry = await this.o.store.entry(message.id);
    if (entry && (entry.state === "done" || entry.state === "ignored")) this.answered(message, entry.reply ?? []);
    // answered and stored, its delivery still being recorded: the caller gets the stored reply
    else if (entry?.state === "replied" && entry.reply) this.o.onAnswered?.(message.id, entry.reply);
  }

  /**
   * Stop taking messages into turns: later ones stay stored (answered by the next start); waits up to `graceMs` for the
   * running ones.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  private enqueue(entry: InboxEntry): void {
    if (this.closing) return;
    const key = chatKeyOf(entry.message);
    this.pending += 1;
    this.o.onInFlight?.(this.pending);
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.process(entry)).finally(() => {
      this.pending -= 1;
      this.o.onInFlight?.(this.pending);
      if (this.chains.get(key) === next) this.chains.delete(key);
      if (this.pending < CHANNEL_MAX_PENDING) for (const wake of this.capacityWaiters.splice(0)) wake();
      if (this.pending === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    this.chains.set(key, next);
  }

  private process(entry: InboxEntry): Promise<void> {
    const tracer = this.o.host.tracer;
    if (!tracer?.enabled) return this.answer(entry);
    const { message } = entry;
    const span = tracer.startSpan(`prx.channel ${this.o.channel.name}`, {
      kind: SpanKind.consumer,
      parent: null,
      attributes: { [Prx.channel]: this.o.channel.name, [Prx.chat]: message.chatId, "messaging.message.id": message.id },
    });
    return inSpan(tracer, span, () => this.answer(entry));
  }

  private async answer(entry: InboxEntry): Promise<void> {
    const { message } = entry;
    let parts = entry.reply;
    let told = false;
    try {
      if (entry.state === "received" || parts === null) {
        // started by a process that died: its answer may be stored already, else its turn goes on from the session
        const started = entry.state === "started" ? await this.startedTurn(entry) : null;
        parts = started && started.answer !== null ? this.partsOf(started.answer) : await this.runTurn(message, started);
        await this.o.store.replied(message.id, parts);
      }
      // stored: a caller waiting in the platform's request (the webhook's synchronous mode) has its answer now, while
      // the delivery is recorded (a restart before it is done delivers the stored parts, with no second turn)
      this.o.onAnswered?.(message.id, parts);
      told = true;
      await this.deliver(message, parts, entry.partsSent);
      // a delivery that sent a part recorded the message done with its last one
      if (entry.partsSent >= parts.length) await this.o.store.done(message.id);
      this.stats.answered += 1;
      this.answered(message, parts, told);
    } catch (error) {
      if (this.closing) {
        this.o.logger.info(`message ${message.id} left for the next start: the channel is stopping (${errorMessage(error)})`);
        return;
      }
      this.stats.failed += 1;
      this.o.logger.error(`message ${message.id} in ${chatKeyOf(message)} failed: ${errorMessage(error)}`);
      // the platform refused the reply for good (after the adapter's retries): do not retry it forever
      await this.o.store.done(message.id).catch((failure: unknown) => {
        this.o.logger.error(`message ${message.id} not marked done: ${errorMessage(failure)}`);
      });
      this.answered(message, parts ?? [], told);
    }
    this.changed();
  }

  /**
   * What the session holds of a message whose turn had started (its user message is in the session, at the seq the
   * inbox row recorded): its answer, or where its turn runs on from. With more than STARTED_TURN_TAIL_MESSAGES after
   * the message, its answer is not looked for: the turn runs on from its message.
   */
  private async startedTurn(entry: InboxEntry): Promise<StartedTurn> {
    const sessions = this.o.host.sessions;
    const { message } = entry;
    const startedSeq = entry.startedSeq ?? null;
    if (!sessions) return startedSeq === null ? { answer: null } : { answer: null, at: startedSeq };
    const tail = await sessions.messages(sessionIdOf(message, this.agentFor(message)), STARTED_TURN_TAIL_MESSAGES);
    // a row started by an earlier version: the session's last user message is this one (one turn at a time per chat)
    return startedTurn(tail, startedSeq, (m) => m.role === "user");
  }

  private partsOf(text: string): string[] {
    return splitMessage(text.trim() === "" ? "(no answer)" : text, this.o.channel.capabilities.maxMessageLength);
  }

  /**
   * One turn with typing shown meanwhile; a failed turn answers with a short notice naming the problem. `started`: the
   * session holds the message already (a turn cut off after writing it), the turn continues from there.
   */
  private async runTurn(message: InboundMessage, started: StartedTurn | null): Promise<string[]> {
    const resumed = started !== null;
    const { channel } = this.o;
    const typing = channel.capabilities.typing ? this.keepTyping(message) : null;
    try {
      const attached =
        !resumed && message.attachments?.length ? await inboundMedia(channel, message, AbortSignal.timeout(ATTACHMENT_FETCH_TIMEOUT_MS)) : null;
      const said = attached?.notes.length ? [message.text, ...attached.notes].filter((t) => t !== "").join("\n") : message.text;
      const agent = this.agentFor(message);
      const result = await this.o.host.runTurn({
        sessionId: sessionIdOf(message, agent),
        agent,
        text: said,
        ...(attached?.media.length ? { media: attached.media } : {}),
        channel: channel.name,
        userId: message.senderId,
        fromOwner: () => this.fromOwner(message),
        metadata: { chat_id: message.chatId, chat_kind: message.chatKind, thread_id: message.threadId, message_id: message.id },
        // a process killed mid-turn answers the stored message at its next start: the mark says the session holds it
        rerunnable: started
          ? resumeOf(started)
          : { answering: { channel: this.o.store.channel, messageId: message.id } },
        ...(this.o.approvals
          ? { approvals: { kind: "ask" as const, chatKey: chatKeyOf(message), notify: (pending: PendingApproval) => this.askOwner(message, pending) } }
          : {}),
      });
      return this.partsOf(result.text);
    } catch (error) {
      this.o.logger.error(`turn failed for ${message.id}: ${errorMessage(error)}`);
      return [`Sorry, I could not answer that (${errorMessage(error).split("\n")[0]!.slice(0, 200)}).`];
    } finally {
      typing?.stop();
    }
  }

  /** The agent [[bindings]] route the message to (default main). */
  private agentFor(message: InboundMessage): string {
    const bindings = this.o.bindings ?? [];
    if (bindings.length === 0) return MAIN_AGENT;
    return bindAgent(bindings, { channel: this.o.channel.name, peer: message.senderId, group: message.chatKind === "dm" ? null : message.chatId });
  }

  /**
   * Typing while the turn runs. The first goes out once the turn has run as far as it goes without waiting (its request
   * to the provider is on its way), so building the platform call and the platform answering it do not come between
   * the message and that request; a turn that ends before then still sends it, before its reply.
   */
  private keepTyping(message: InboundMessage): { stop(): void } {
    const send = () =>
      void this.o.channel.typing(message.chatId, message.threadId).catch((error: unknown) => {
        this.o.logger.debug(`typing indicator failed: ${errorMessage(error)}`);
      });
    let first: ReturnType<typeof setImmediate> | null = setImmediate(() => {
      first = null;
      send();
    });
    const timer = setInterval(send, this.o.typingIntervalMs ?? TYPING_INTERVAL_MS);
    return {
      stop: () => {
        clearInterval(timer);
        if (first === null) return;
        clearImmediate(first);
        first = null;
        send();
      },
    };
  }

  private deliver(message: InboundMessage, parts: string[], from: number): Promise<void> {
    const name = this.o.channel.name;
    const attributes = { [Prx.channel]: name, [Prx.chat]: message.chatId, [Prx.parts]: parts.length - from };
    return inChildSpan(`deliver ${name}`, { kind: SpanKind.producer, attributes }, () => this.sendParts(message, parts, from));
  }

  private async sendParts(message: InboundMessage, parts: string[], from: number): Promise<void> {
    for (let i = from; i < parts.length; i++) {
      await this.o.channel.send({ chatId: message.chatId, threadId: message.threadId, replyTo: message.id, text: parts[i]! });
      // the last part ends the message: its count and the done state are one write (a restart sends no file again either way)
      if (i + 1 === parts.length) await this.o.store.delivered(message.id, i + 1);
      else await this.o.store.partSent(message.id, i + 1);
      this.stats.lastOutbound = Date.now();
    }
    // the files go once, with the delivery that sent the last part
    if (from < parts.length) await this.sendFiles(message, parts.join("\n"));
  }

  /** The workspace files the reply links, each in its own message after the text; one that fails is said in a notice. */
  private async sendFiles(message: InboundMessage, text: string): Promise<void> {
    const { channel, workspace, logger } = this.o;
    if (!workspace) return;
    const target = { chatId: message.chatId, threadId: message.threadId, replyTo: message.id };
    const { sent, notes } = await sendLinkedFiles(channel, target, workspace, text, logger);
    if (sent > 0) this.stats.lastOutbound = Date.now();
    if (notes.length > 0) await this.notify(message, notes.join("\n"), false);
  }

  /**
   * A notice outside a turn (pairing code, refusal, oversize, a file not sent); a failed send is logged, never retried.
   * `final`: the notice is the message's answer (a waiting caller gets it).
   */
  private async notify(message: InboundMessage, text: string, final = true): Promise<void> {
    try {
      for (const part of splitMessage(text, this.o.channel.capabilities.maxMessageLength)) {
        await this.o.channel.send({ chatId: message.chatId, threadId: message.threadId, replyTo: message.id, text: part });
      }
      this.stats.lastOutbound = Date.now();
      if (final) this.answered(message, [text]);
    } catch (error) {
      this.o.logger.error(`could not send a notice to ${message.chatId}: ${errorMessage(error)}`);
    }
    this.changed();
  }

  /**
   * The runner is done with the message: a waiting caller gets the parts (unless `told` already), and the platform
   * lets the message go.
   */
  private answered(message: InboundMessage, parts: string[], told = false): void {
    if (!told) this.o.onAnswered?.(message.id, parts);
    this.o.channel.settled?.(message).catch((error: unknown) => this.o.logger.warn(`message ${message.id} not settled on the platform: ${errorMessage(error)}`));
  }

  private changed(): void {
    this.o.onStats?.(this.stats);
  }
}
