import type { SQL } from "bun";
import type { ChatMessage, MediaRef, ToolCall } from "../contracts/chat.ts";
import type { Awaitable } from "../core/awaitable.ts";
import type { Setting } from "../core/setting.ts";

/**
 * One interface per concern, each with a SQLite implementation (the embedded default, synchronous underneath) and a
 * PostgreSQL one (`Bun.sql`, shared by replicas). Methods return `Awaitable<T>`: SQLite answers at once (callers
 * on the hot path pay no promise), PostgreSQL with a promise; code that may meet either awaits.
 */

export type StorageBackendName = "sqlite" | "postgres";

/** How a storage is opened: its clock and the lifetime of idempotency keys. */
export interface StorageOptions {
  /** Clock of tokens, idempotency keys, pairings and channel state (tests move it). */
  now?: () => number;
  /** gateway.idempotency_ttl_s in ms (a function: the one in effect at each use). */
  idempotencyTtlMs?: Setting<number>;
  /** gateway.responses_ttl_days in ms: a stored response older than this is gone (DEFAULT_RESPONSES_TTL_MS). */
  responsesTtlMs?: Setting<number>;
}

// ---------------------------------------------------------------- sessions and history

export interface SessionSummary {
  id: string;
  title: string;
  channel: string;
  /** The agent the session talks to ("main" unless [agents.*] route it elsewhere). */
  agent: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
}

export interface StoredMessage {
  seq: number;
  role: ChatMessage["role"];
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
  /** Images and audio of the message, by content hash (no bytes). */
  media?: MediaRef[];
  /** Tokens and cost of the model call that wrote this assistant message. */
  usage?: MessageUsage;
  createdAt: string;
}

/**
 * A model-written summary of a session's messages up to `throughSeq` (compaction). The newest one stands for every
 * message it covers in the prompt (it folds the one before it in); the messages themselves stay in the session.
 */
export interface ConversationSummary {
  /** First message this summary newly folded in (the one before it covered those before). */
  fromSeq: number;
  /** Last message it covers. */
  throughSeq: number;
  content: string;
  /** The model that wrote it. */
  model: string;
  createdAt: string;
}

/** A summary to keep: the range it covers and who wrote it. */
export type NewConversationSummary = Omit<ConversationSummary, "createdAt">;

/** How SessionStore.append writes its messages. */
export interface AppendOptions {
  /**
   * A session that does not exist yet is first created on this channel (as `ensure` would), in the same
   * transaction: a turn's first write is then one statement instead of two.
   */
  channel?: string;
  /** The agent a session created by this append belongs to (default "main"). */
  agent?: string;
  /**
   * These are the last messages of a turn holding the session's lease; a store may write them with the statement
   * that ends the lease (PostgreSQL does), before the lease's `hold` resolves, and reads of the session through the
   * store still see them.
   */
  endsTurn?: boolean;
  /**
   * The stored inbound message these messages answer (its user message among them, first), marked "started" in the
   * same transaction with the seq of the first of these messages (InboxRow.startedSeq: a rerun after a crash then
   * knows the session holds it, and where); such a write (not `endsTurn`) gives the session its title when it has
   * none but leaves its updated_at to the turn's last write.
   */
  answering?: InboxRef;
}

export interface SessionStore {
  /** Most recently updated first; with `agent`, only that agent's sessions. */
  list(limit?: number, agent?: string): Awaitable<SessionSummary[]>;
  /** Sessions whose title or id contains `text` (case-insensitive), most recently updated first. */
  search(text: string, limit?: number): Awaitable<SessionSummary[]>;
  /** Give a session its own title (1-SESSION_TITLE_MAX_CHARS characters); null when there is no such session. */
  rename(id: string, title: string): Awaitable<SessionSummary | null>;
  get(id: string): Awaitable<SessionSummary | null>;
  /** Creates the session if it does not exist. */
  ensure(id: string, channel: string): Awaitable<SessionSummary>;
  /** The last `limit` messages, oldest first. */
  messages(id: string, limit?: number): Awaitable<StoredMessage[]>;
  /** Every message of a session, oldest first (exports). */
  allMessages(id: string): Awaitable<StoredMessage[]>;
  /** How many sessions there are. */
  count(): Awaitable<number>;
  /** Every session id, most recently updated first (exports). */
  ids(): Awaitable<string[]>;
  /**
   * Delete a session and its messages in one transaction; null when there is no such session. `media`: the images
   * and audio its messages referred to (their bytes go too unless another session refers to them).
   */
  delete(id: string): Awaitable<{ messages: number; media: number } | null>;
  /** Append messages in one transaction, numbered after the last one stored (AppendOptions says how). */
  append(id: string, messages: AppendedMessage[], options?: AppendOptions): Awaitable<void>;
  /**
   * History ready for a provider (see session-history.ts): the last `limit` messages after the newest summary. With
   * `turnAt` (the seq of the user message of a turn run again after its process died, InboxRow.startedSeq), the
   * history ends with that turn's messages: before the first user message written after it (another turn's), and
   * after the newest summary made before it.
   */
  history(id: string, limit: number, turnAt?: number): Awaitable<ChatMessage[]>;
  /** The newest summary of the session, or null (never compacted). */
  summary(id: string): Awaitable<ConversationSummary | null>;
  /** Every summary of the session, oldest first. */
  summaries(id: string): Awaitable<ConversationSummary[]>;
  /** Keep a summary (a second one through the same message replaces the first); deleted with its session. */
  addSummary(id: string, summary: NewConversationSummary): Awaitable<void>;
}

// ---------------------------------------------------------------- usage

/** Tokens of one model call and its cost. */
export interface MessageUsage {
  provider: string;
  model: string;
  /** Prompt tokens, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** null: the model's prices are not known, so nothing is counted */
  cost_usd: number | null;
}

/** A message to append; an assistant message carries the usage of the model call that wrote it. */
export type AppendedMessage = ChatMessage & { usage?: MessageUsage };

/** Where usage is counted: its day (YYYY-MM-DD in the budget time zone) and who spent it. */
export interface UsageCharge {
  day: string;
  channel: string;
  /** "<channel>:<user id>", or null when the turn has no user id */
  sender: string | null;
  /** The agent of the turn (kept as kind "agent"); absent: not counted per agent. */
  agent?: string;
}

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cost_usd: number;
  /** Model calls counted. */
  calls: number;
}

export type UsageGroup = "day" | "session" | "model" | "channel" | "agent";

/** Totals of one day ("YYYY-MM-DD"), session id, model ("<provider>/<model>") or channel. */
export interface UsageRow extends UsageTotals {
  key: string;
}

/** What a budget limits: everything, one channel, or one sender ("<channel>:<user id>"). */
export interface UsageScope {
  kind: "all" | "channel" | "sender";
  key: string;
}

/** What to add to one kept row: its kind ("all", "channel", "sender", "model", "session"), key and day. */
export interface UsageDelta extends UsageTotals {
  kind: string;
  key: string;
  day: string;
}

/**
 * Usage totals kept per day and scope (one row each, added to by upserts), so reading a day or a month is a range
 * read of the primary key, whatever the number of messages. Deleting a session keeps what it spent.
 */
export interface UsageStore {
  /** Totals of the days from `sinceDay` on (inclusive), one row per `group` key, ordered by key. */
  totals(group: UsageGroup, sinceDay: string): Awaitable<UsageRow[]>;
  /** Everything one session spent. */
  session(id: string): Awaitable<UsageTotals>;
  /** Add to the kept rows in one transaction (one row per kind, key and day in `deltas`). */
  add(deltas: readonly UsageDelta[]): Awaitable<void>;
  /** Cost per scope and day from `fromDay` to `toDay` (inclusive): what budgets read, in one query. */
  spent(scopes: readonly UsageScope[], fromDay: string, toDay: string): Awaitable<Array<UsageScope & { day: string; cost_usd: number }>>;
}

// ---------------------------------------------------------------- media

/** Bytes of an image or audio clip, by content hash. */
export interface StoredMedia {
  sha256: string;
  mime: string;
  data: Uint8Array;
}

/** Images and audio by content hash, shared by every session (and, on PostgreSQL, every replica). */
export interface MediaStore {
  /** Keep bytes under their hash (a second put of the same bytes changes nothing). */
  put(media: StoredMedia): Awaitable<void>;
  get(sha256: string): Awaitable<StoredMedia | null>;
  /** How many blobs are stored. */
  count(): Awaitable<number>;
}

/**
 * One turn at a time per session across every process sharing the store. `hold` runs `task` while holding the
 * session's lease and releases it whatever happens; waiting longer than the store's timeout is STORAGE_LEASE.
 */
export interface SessionLeases {
  hold<T>(sessionId: string, task: () => Promise<T>): Promise<T>;
  close(): Awaitable<void>;
}

// ---------------------------------------------------------------- gateway tokens

/** A bearer token as listed; the token itself is shown once at creation and never stored. */
export interface TokenRecord {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked: boolean;
}

export interface TokenStore {
  create(name: string): Awaitable<{ token: string; record: TokenRecord }>;
  list(): Awaitable<TokenRecord[]>;
  /** True when revoked now, false when it was already revoked; an unknown id is NOT_FOUND. */
  revoke(id: string): Awaitable<boolean>;
  activeCount(): Awaitable<number>;
  /** The live token matching `presented`, or null. */
  verify(presented: string): Awaitable<TokenRecord | null>;
}

// ---------------------------------------------------------------- the gateway's pairing code

/** One guess at the gateway's pairing code, as the store counted it. */
export type PairingCodeGuess =
  | { outcome: "ok" }
  /** No code, or it was used, or it expired. */
  | { outcome: "closed" }
  /** The code took more wrong guesses than it may: it is refused from now on, even when right. */
  | { outcome: "burned" }
  /** The code survives `left` more wrong guesses; the one after burns it. */
  | { outcome: "wrong"; left: number };

/**
 * The gateway's one-time pairing code (only its SHA-256) and how many wrong guesses it took, from any address
 * through any process on the store: replicas and `prx gateway pair-code` see one code and one count.
 */
export interface GatewayPairingStore {
  /** Replace the code with a fresh one valid until `expiresAt`; its count of wrong guesses starts at 0. */
  open(codeSha256: string, expiresAt: number): Awaitable<void>;
  /** One guess, atomically: the right code is consumed; a wrong one past `maxWrong` wrong guesses burns the code. */
  guess(codeSha256: string, maxWrong: number): Awaitable<PairingCodeGuess>;
}

// ---------------------------------------------------------------- idempotency keys

export type IdempotencyBegin = { kind: "new" } | { kind: "replay"; status: number; body: string };

export interface IdempotencyStore {
  /** Claim `key` atomically, or replay its stored reply; CONFLICT while pending or for another body. */
  begin(scope: string, key: string, bodySha256: string): Awaitable<IdempotencyBegin>;
  complete(scope: string, key: string, status: number, body: string): Awaitable<void>;
  /** Forget a pending claim (its request failed in a way worth retrying). */
  release(scope: string, key: string): Awaitable<void>;
}

// ---------------------------------------------------------------- stored Responses API answers

/** A response of the OpenAI Responses API kept for `previous_response_id`, owned by the credential that made it. */
export interface StoredResponse {
  /** `resp_...` */
  id: string;
  /** The credential that made it: only that credential reads or deletes it. */
  scope: string;
  /** Epoch seconds. */
  createdAt: number;
  /** The response object as it was answered (JSON). */
  response: string;
  /** The request's input items, each with its id (JSON array). */
  inputItems: string;
  /** The conversation's items up to and including this response's output (JSON array): what a follow-up continues. */
  context: string;
}

export interface ResponseStore {
  put(record: StoredResponse): Awaitable<void>;
  /** Null when there is no such response for this scope. */
  get(scope: string, id: string): Awaitable<StoredResponse | null>;
  /** True when it was there. */
  delete(scope: string, id: string): Awaitable<boolean>;
  /** Remove a bounded batch of expired responses when a cleanup pass is due (put runs it too); how many. */
  purgeExpired(): Awaitable<number>;
}

// ---------------------------------------------------------------- plugin key/value

export interface PluginKvStore {
  get(plugin: string, key: string): Awaitable<Uint8Array | undefined>;
  /** Insert or replace; LIMIT_EXCEEDED when the plugin's keys and values would pass `quotaBytes`. */
  set(plugin: string, key: string, value: Uint8Array, quotaBytes: number): Awaitable<void>;
  delete(plugin: string, key: string): Awaitable<boolean>;
  /** Keys starting with `prefix`, sorted, at most `limit`. */
  listKeys(plugin: string, prefix: string, limit: number): Awaitable<string[]>;
}

// ---------------------------------------------------------------- cron state

export interface CronStateRow {
  job_id: string;
  schedule: string;
  last_slot: number;
  removed_at: number | null;
  fires: number;
  /** Who runs the slot last claimed, until when (epoch ms), with which fencing token; null once it finished. */
  lease_owner: string | null;
  lease_until: number | null;
  fence: number;
  /** Why the last run failed (or was not run), or null. */
  last_error: string | null;
}

/** A claim or a takeover: the fencing token later writes of this run present. */
export interface CronClaim {
  fence: number;
}

export interface CronStateStore {
  get(jobId: string): Awaitable<CronStateRow | null>;
  /** Insert a fresh record (baseline = now) unless one exists; returns the record now stored. */
  ensure(jobId: string, schedule: string, baseline: number): Awaitable<CronStateRow>;
  /** Start over from `baseline` (schedule changed, or the job was removed and is back). */
  rebaseline(jobId: string, schedule: string, baseline: number): Awaitable<CronStateRow>;
  markRemoved(jobId: string, at: number): Awaitable<void>;
  /** Drop the record of a job that is gone for good (a removed cron tool job). */
  forget(jobId: string): Awaitable<void>;
  /** Claim `slot` for `owner` with a run lease until `leaseUntil`: non-null for exactly one claimant. */
  claim(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): Awaitable<CronClaim | null>;
  /** Take over a run whose lease expired before `at` (its runner died): a new fence, or null when not expired. */
  takeOver(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): Awaitable<CronClaim | null>;
  /** Extend a run's lease; false when the fence is stale (another replica took over). */
  renew(jobId: string, fence: number, leaseUntil: number): Awaitable<boolean>;
  /** Record the outcome and drop the lease; false when the fence is stale (nothing written). */
  finish(jobId: string, fence: number, at: number, ok: boolean, error: string | null): Awaitable<boolean>;
}

// ---------------------------------------------------------------- jobs of the cron tool

/** A job the assistant scheduled with the cron tool: when (schedule JSON), what (payload JSON), and where it came from. */
export interface CronJobRow {
  id: string;
  name: string | null;
  session_id: string;
  /** The channel the job was created from ("telegram", "gateway", "chat", ...) and its chat there. */
  channel: string;
  chat_id: string | null;
  thread_id: string | null;
  /** Who asked for it (the sender on a channel), or null. */
  owner: string | null;
  /** The schedule as the tool took it (JSON). */
  schedule: string;
  /** The payload as the tool took it (JSON). */
  payload: string;
  created_at: number;
  /** A manual run asked for (prx cron run) and not yet taken by a process, or null. */
  run_requested_at: number | null;
}

/** One run of a cron tool job, as kept (the newest CRON_JOB_RUNS_KEPT per job). */
export interface CronJobRunRow {
  job_id: string;
  at: number;
  /** The slot this run was for; null for a manual run. */
  slot: number | null;
  ok: boolean;
  /** What was delivered, or why it failed (cut at CRON_JOB_RUN_TEXT_MAX_CHARS). */
  detail: string;
}

export interface CronJobStore {
  add(row: CronJobRow): Awaitable<void>;
  get(id: string): Awaitable<CronJobRow | null>;
  /** Oldest first; of one session when `sessionId` is given. */
  list(sessionId?: string): Awaitable<CronJobRow[]>;
  count(sessionId?: string): Awaitable<number>;
  remove(id: string): Awaitable<boolean>;
  /** Ask for a run now; false when the job does not exist. */
  requestRun(id: string, at: number): Awaitable<boolean>;
  /** Take the manual run asked at `at`: true for exactly one process. */
  takeRun(id: string, at: number): Awaitable<boolean>;
  /** Keep a run, dropping the oldest past `keep` for the job. */
  recordRun(run: CronJobRunRow, keep: number): Awaitable<void>;
  /** Newest first. */
  runs(jobId: string, limit: number): Awaitable<CronJobRunRow[]>;
  /**
   * Where the backend tells every process sharing the store of each other's writes (PostgreSQL's LISTEN/NOTIFY):
   * `changed` is called after each job added, removed or asked to run by any process, and each time the notices
   * (re)start (a write while they were down is told by nothing else). Absent: the jobs are read every
   * CRON_TOOL_POLL_MS instead.
   */
  watch?(changed: () => void): Promise<StoreWatch>;
}

/** A store's notices of other processes' writes, until closed. */
export interface StoreWatch {
  close(): Promise<void>;
}

// ---------------------------------------------------------------- channel offsets, inbox and pairings

/**
 * "started": the session holds the message's user message (written with it, SessionStore.append `answering`), and
 * maybe its answer; "replied": the answer's parts are stored with the row.
 */
export type InboxState = "received" | "started" | "replied" | "done" | "ignored";

/** A channel's stored inbound message (channel_inbox's key). */
export interface InboxRef {
  channel: string;
  messageId: string;
}

/** A stored inbound message: its JSON as the channel wrote it, and how far its answer got. */
export interface InboxRow {
  payload: string;
  state: InboxState;
  reply: string[] | null;
  partsSent: number;
  /**
   * The seq of the session message the "started" mark was written with (its user message, or a reminder's text);
   * null before it is started, and for rows started by a version of prx that did not record it.
   */
  startedSeq: number | null;
}

export interface ChannelStatusRow {
  channel: string;
  pid: number | null;
  state: string;
  last_inbound: number | null;
  last_outbound: number | null;
  last_error: string | null;
  /** When the last error happened (epoch ms). */
  last_error_at: number | null;
  updated_at: number;
}

export interface ChannelStateStore {
  /** The cursor last written with a message or a liveness row (`cursor` of admit and writeStatus). */
  getCursor(channel: string): Awaitable<string | null>;
  /**
   * Store a message once by its platform id: false for a redelivery. With `cursor`, the channel's cursor is set to
   * it in the same write (whether or not the message was new).
   */
  admit(channel: string, messageId: string, chatKey: string, payload: string, state: InboxState, cursor?: string): Awaitable<boolean>;
  /** Messages not fully answered yet, oldest first. */
  open(channel: string): Awaitable<InboxRow[]>;
  entry(channel: string, messageId: string): Awaitable<InboxRow | null>;
  replied(channel: string, messageId: string, parts: string[]): Awaitable<void>;
  partSent(channel: string, messageId: string, partsSent: number): Awaitable<void>;
  /** The last part is sent: its count and the done state in one write. */
  delivered(channel: string, messageId: string, partsSent: number): Awaitable<void>;
  done(channel: string, messageId: string): Awaitable<void>;
  /** Forget answered messages received before `before`; returns how many. */
  prune(channel: string, before: number): Awaitable<number>;
  /** With `cursor`, the channel's cursor is set to it in the same write. */
  writeStatus(row: ChannelStatusRow, cursor?: string): Awaitable<void>;
  statuses(): Awaitable<ChannelStatusRow[]>;
}

export interface PairingRecord {
  channel: string;
  sender_id: string;
  display: string;
  code: string | null;
  state: "pending" | "approved";
  created_at: number;
  approved_at: number | null;
  /** The sender is an owner: they answer tool approvals asked in this channel. */
  owner?: boolean;
}

export interface PairingStore {
  isApproved(channel: string, senderId: string): Awaitable<boolean>;
  /** The sender's pending code, made when absent or expired (the oldest pending request dropped past the max). */
  request(channel: string, senderId: string, display: string): Awaitable<string>;
  /** Approve a pending code (`owner`: mark the sender an owner); NOT_FOUND for an unknown or expired one. */
  approve(code: string, owner?: boolean): Awaitable<PairingRecord>;
  /** Whether an approved pairing marks this sender an owner of the channel. */
  isOwner(channel: string, senderId: string): Awaitable<boolean>;
  revoke(senderId: string, channel?: string): Awaitable<number>;
  list(): Awaitable<PairingRecord[]>;
}

// ---------------------------------------------------------------- tool approvals and the audit log

export type ApprovalState = "pending" | "allow" | "allow_session" | "deny" | "timeout";

/** A tool call waiting for (or past) the owner's decision. */
export interface ApprovalRow {
  id: string;
  /** Four digits the owner answers with in a chat ("yes 4821"). */
  code: string;
  session_id: string;
  channel: string;
  /** The chat the question was asked in (channels), so an answer there can be matched; null elsewhere. */
  chat_key: string | null;
  sender: string | null;
  tool: string;
  risk: string;
  args_sha256: string;
  args_preview: string;
  state: ApprovalState;
  decided_by: string | null;
  reason: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
}

export interface ApprovalStore {
  create(row: ApprovalRow): Awaitable<void>;
  get(id: string): Awaitable<ApprovalRow | null>;
  /** Pending approvals whose time has not run out, oldest first (at most `limit`). */
  pending(now: number, limit: number): Awaitable<ApprovalRow[]>;
  /** The pending approval asked in this chat with this code, if any. */
  byCode(channel: string, chatKey: string, code: string, now: number): Awaitable<ApprovalRow | null>;
  /** Decide a pending approval once: the row after, or null when it is unknown or was decided already. */
  decide(id: string, state: Exclude<ApprovalState, "pending">, by: string, reason: string | null, at: number): Awaitable<ApprovalRow | null>;
  /** Whether the owner allowed this tool for the rest of this session. */
  allowedForSession(sessionId: string, tool: string): Awaitable<boolean>;
  /**
   * Where the backend tells every process sharing the store of each other's writes (PostgreSQL's LISTEN/NOTIFY):
   * `decided` is called with the approval's id after each decision by any process, and with null each time the
   * notices (re)start (a decision while they were down is told by nothing else). Absent: a waiting call reads its
   * approval every APPROVAL_POLL_MS instead.
   */
  watch?(decided: (id: string | null) => void): Promise<StoreWatch>;
}

/** One tool call as the audit log keeps it. */
export interface AuditEntry {
  at: number;
  session_id: string;
  channel: string;
  sender: string | null;
  tool: string;
  risk: string;
  args_sha256: string;
  args_preview: string;
  /** allow | allow_session | deny | timeout */
  decision: string;
  /** policy, session, api, console, chat, owner:<sender>, --yes, no-approver */
  decided_by: string;
  /** ok | error | not_run */
  outcome: string;
  error: string | null;
  duration_ms: number;
  /** The agent whose turn made the call ("main" by default). */
  agent?: string;
}

export interface AuditQuery {
  since?: number;
  tool?: string;
  limit: number;
}

export interface AuditStore {
  append(entry: AuditEntry): Awaitable<void>;
  /** Newest first. */
  list(query: AuditQuery): Awaitable<Array<AuditEntry & { id: number }>>;
}

// ---------------------------------------------------------------- memory (SQLite FTS5)

/** An entry as the memory tables hold it (`private` 0/1), with `score` when it was ranked. */
export interface MemoryRow {
  id: string;
  key: string;
  content: string;
  category: string;
  session_id: string | null;
  updated_at: string;
  private: number;
  score?: number;
}

/** An entry as exported and imported: every column but the id. */
export interface MemoryRecordRow {
  seq: number;
  key: string;
  content: string;
  category: string;
  session_id: string | null;
  created_at: string;
  updated_at: string;
  private: number;
}

export interface MemoryUpsert {
  key: string;
  content: string;
  category: string;
  sessionId: string | null;
  private: boolean;
  /** ISO time of this write (created_at of a new entry, updated_at always). */
  at: string;
}

/** One term of a ranked search and what holding it adds to an entry's score. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

export interface MemoryScope {
  /** Restrict to this session's entries plus the global ones. */
  sessionId?: string | null;
  includePrivate: boolean;
  /** Restrict by key (an agent's own memory: see MemoryKeyScope). */
  keys?: MemoryKeyScope;
}

/**
 * Which keys a recall may return: only those beginning with `prefix`, and none beginning with one of
 * `hiddenPrefixes` (agents with their own memory keep their entries under a prefix of their id).
 */
export interface MemoryKeyScope {
  prefix?: string;
  hiddenPrefixes?: readonly string[];
}

/**
 * The memory tables of the workspace SQLite file (every backend keeps them there): rows in, rows out. Ranking,
 * validation and the entry shape belong to the memory backend in src/memory.
 */
export interface MemoryStore {
  /**
   * `read` with every statement in it seeing one snapshot, in one read transaction: one lock of the database's shared
   * memory for all of them, where each statement alone takes and drops its own.
   */
  snapshot<T>(read: () => T): T;
  upsert(entry: MemoryUpsert): void;
  /** The most recent entries, newest first. */
  recent(limit: number, scope: MemoryScope): MemoryRow[];
  byKey(key: string): MemoryRow | null;
  /** True when an entry was removed. */
  deleteKey(key: string): boolean;
  /** The number of entries, read from the counter the database keeps on every write (no scan). */
  count(): number;
  /** Throws when the full-text index cannot be read. */
  ping(): void;
  /** The `seq` of entries holding `term`, at most `cap` of them (one read of the term's index entries). */
  termEntries(term: string, cap: number): number[];
  /**
   * The visible entries among `seqs`, by BM25 over the OR of `terms` (best first), at most `limit`. BM25 is computed
   * for those entries only, however many others hold the terms.
   */
  bestOf(seqs: readonly number[], terms: readonly string[], scope: MemoryScope & { limit: number }): MemoryRow[];
  /** Newest first, with the number of entries (of the category) in all. */
  list(options: { limit: number; offset: number; category?: string }): { rows: MemoryRow[]; total: number };
  /** Entries after `afterSeq`, oldest first, at most `limit`. */
  page(afterSeq: number, limit: number): MemoryRecordRow[];
  /** Insert or replace every record in one transaction; how many keys were new and how many replaced. */
  importRecords(records: Array<Omit<MemoryRecordRow, "seq">>): { created: number; replaced: number };
  /** Delete the entries of a session; returns how many. */
  forgetSession(sessionId: string): number;
}

/** An entry waiting for a vector of its current text (`updated_at` is the revision it is computed for). */
export interface MemoryVectorPending {
  seq: number;
  key: string;
  content: string;
  updated_at: string;
}

/** A vector computed for an entry's revision. */
export interface MemoryVectorWrite {
  seq: number;
  revision: string;
  vector: Float32Array;
}

export interface MemoryVectorCounts {
  /** Entries with a vector of their current text (any model). */
  vectors: number;
  /** Entries waiting for one. */
  pending: number;
}

/**
 * Memory's vectors in the workspace SQLite file (hybrid recall): written and searched with sqlite-vec's functions
 * on a connection that loaded it (see FileStores.memoryVectors).
 */
export interface MemoryVectorStore {
  /** The entry under `key` (when there is one) and up to `limit` others waiting for a vector, oldest first. */
  pending(key: string | null, limit: number): MemoryVectorPending[];
  /** The first entry of the store, waiting or not (null when it is empty). */
  first(): MemoryVectorPending | null;
  /** Write vectors of `model`; an entry leaves the queue only when the revision embedded is still its current one. */
  write(model: string, rows: MemoryVectorWrite[]): void;
  /** Queue every entry whose vector is not of `model` at `dims`; returns how many were queued. */
  requeueOthers(model: string, dims: number): number;
  /** Queue every entry (a re-embedding of the whole store); returns how many entries there are. */
  requeueAll(): number;
  /**
   * The visible entries nearest `query` by cosine distance among vectors of `model` computed for the entry's current
   * text, nearest first, at most `limit`, each within `maxDistance`. Their SimHash codes pick `candidates` entries first
   * (Hamming distance); their stored vectors are then compared by cosine distance.
   */
  nearest(
    query: Float32Array,
    model: string,
    scope: MemoryScope & { limit: number; candidates: number; maxDistance: number },
  ): Array<MemoryRow & { distance: number }>;
  counts(): MemoryVectorCounts;
}

// ---------------------------------------------------------------- remote plugins (SQLite)

/** Which of a plugin's memory objects (elizaOS Memory JSON) to read: the table, and optionally room, entity, time. */
export interface RemoteMemoryFilter {
  tableName: string;
  roomId?: string;
  entityId?: string;
  start?: number;
  end?: number;
  unique?: boolean;
}

/**
 * Remote plugins' settings and memory objects, per plugin, in the workspace SQLite file. Values are JSON text; their
 * limits are the plugin host's.
 */
export interface RemotePluginStore {
  setting(plugin: string, key: string): string | undefined;
  /** How many settings the plugin has besides `key`, and their bytes (keys and values). */
  settingsBesides(plugin: string, key: string): { n: number; bytes: number };
  settings(plugin: string): Array<{ key: string; value: string }>;
  putSetting(plugin: string, key: string, value: string, at: string): void;
  memory(plugin: string, id: string): string | undefined;
  putMemory(plugin: string, id: string, table: string, json: string, at: string): void;
  /** Memories of the table matching the filter, newest first (createdAt, then insertion), at most `limit`. */
  memories(plugin: string, filter: RemoteMemoryFilter, limit: number): string[];
}

// ---------------------------------------------------------------- the whole

/** The workspace SQLite file answering a trivial read. */
export type StoragePing = { ok: true } | { ok: false; error: string };

// ---------------------------------------------------------------- the whole

export interface MigrationStatus {
  backend: StorageBackendName;
  /** Highest version applied. */
  version: number;
  /** Highest version this build knows. */
  latest: number;
  applied: Array<{ version: number; name: string; applied_at: string }>;
  pending: Array<{ version: number; name: string }>;
}

// ---------------------------------------------------------------- session links

/** A session made by another one's delegated sub-task: its parent, and how deep it is in the chain (a child of a top session: 1). */
export interface SessionLink {
  childId: string;
  parentId: string;
  depth: number;
  /** Epoch milliseconds. */
  createdAt: number;
}

/** Which session made which (delegate's child sessions). */
export interface SessionLinkStore {
  /** Record that `childId` was made by `parentId`; a second link of the same child is refused by the store. */
  link(link: SessionLink): Awaitable<void>;
  /** The link that made this session, or null for a session nobody delegated to. */
  parentOf(childId: string): Awaitable<SessionLink | null>;
  /** Sessions this one made, oldest first, at most `limit`. */
  children(parentId: string, limit: number): Awaitable<SessionLink[]>;
  /** Forget the link that made this session (it was deleted); its own helpers keep theirs. */
  unlink(childId: string): Awaitable<void>;
}

/**
 * Whether memory held any entry when a session's turn started, as the storage read it with the turn's lease
 * (PostgreSQL: postgres/memory-presence.ts), for memory's backend on the same pool.
 */
export interface MemoryPresence {
  /** A memory backend reads the answers: turns start asking. */
  watch(): void;
  /** True when memory was empty at the turn start of `sessionId` and nothing since made that stale (answered once). */
  takeEmpty(sessionId: string): boolean;
  /** This process wrote memory. */
  written(): void;
}

/** The stores of the `[storage]` backend: the workspace SQLite file, or PostgreSQL shared by replicas. */
export interface BackendStorage {
  readonly backend: StorageBackendName;
  /** The PostgreSQL pool of the stores (memory's PostgreSQL backend shares it); null on SQLite. */
  readonly sql: SQL | null;
  /** What a PostgreSQL turn's start read of memory, for memory's backend on the same pool (memory-presence.ts); null on SQLite. */
  readonly memoryPresence: MemoryPresence | null;
  readonly sessions: SessionStore;
  /**
   * Cross-process session ordering; null on SQLite, the single-host default, where each process's session queue
   * orders its own turns (processes sharing one workspace file serve distinct sessions: channels key theirs).
   */
  readonly leases: SessionLeases | null;
  readonly tokens: TokenStore;
  readonly gatewayPairing: GatewayPairingStore;
  readonly idempotency: IdempotencyStore;
  /** Responses API answers kept for previous_response_id. */
  readonly responses: ResponseStore;
  readonly pluginKv: PluginKvStore;
  readonly cron: CronStateStore;
  readonly cronJobs: CronJobStore;
  readonly channels: ChannelStateStore;
  readonly pairings: PairingStore;
  readonly media: MediaStore;
  readonly usage: UsageStore;
  readonly approvals: ApprovalStore;
  readonly audit: AuditStore;
  readonly sessionLinks: SessionLinkStore;
  status(): Promise<MigrationStatus>;
  close(): Promise<void>;
}

/**
 * The stores of the workspace SQLite file (data/prx.db), which every backend keeps: memory's FTS5 tables and remote
 * plugins' tables live there, and a wasm guest's sandbox opens its own connection to it for kv.
 */
export interface FileStores {
  /** Where the file is (":memory:" for a throw-away database). */
  readonly path: string;
  readonly memory: MemoryStore;
  readonly remotePlugins: RemotePluginStore;
  /**
   * Memory's vectors on this connection, with sqlite-vec loaded from `cacheDir` (written there once); a reason
   * instead when the extension cannot load here (recall then stays full-text search).
   */
  memoryVectors(cacheDir: string): Promise<MemoryVectorStore | { unavailable: string }>;
  /** Whether the file answers a trivial read (the gateway's /health). */
  ping(): StoragePing;
}

/**
 * Every store of one workspace: opened once by the command that runs (gateway, channel process, chat, agent) and
 * handed to whoever needs it; closing it closes its connections.
 */
export interface Storage extends BackendStorage, FileStores {}
