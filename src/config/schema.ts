import { z } from "zod";
import { OPT_IN_TOOL_NAMES, TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../core/tool-names.ts";
import { ChannelKinds, DmPolicies, GroupPolicies, ProviderKinds } from "./kinds.ts";
import { McpConfigSchema } from "./mcp.ts";
import { SkillsConfigSchema } from "./skills.ts";
import { DelegateSchema, MessageSendSchema } from "./agent-tools-schema.ts";

export { ChannelKinds, DmPolicies, GroupPolicies, ProviderKinds };

/**
 * The one schema of config.toml. Every object is strict: an unknown key is an error naming its path.
 * Secrets never live here: providers name the environment variable that holds their key.
 */
const pricePerMillion = (what: string) =>
  z.number().min(0).max(100_000).optional().describe(`USD per million ${what} tokens`);

/** What prx knows of one model; each key overrides the same fact of the built-in table. */
export const ModelInfoSchema = z.strictObject({
  context_window: z.number().int().min(1024).max(100_000_000).optional().describe("tokens the model reads and writes in one call"),
  max_output_tokens: z.number().int().min(1).max(10_000_000).optional().describe("most tokens the model writes in one reply"),
  vision: z.boolean().optional().describe("false: the model gets a text note in place of each image"),
  audio: z.boolean().optional().describe("true: the model takes audio input itself"),
  input_per_mtok: pricePerMillion("input"),
  output_per_mtok: pricePerMillion("output"),
  cached_input_per_mtok: pricePerMillion("cached input"),
});

export const ProviderConfigSchema = z
  .strictObject({
    kind: z.enum(ProviderKinds).default("openai-compatible"),
    base_url: z.url().optional().describe("API root, e.g. https://api.openai.com/v1"),
    api_key_env: z.string().min(1).optional().describe("name of the environment variable holding the API key"),
    models: z.array(z.string().min(1)).default([]),
    timeout_ms: z.number().int().min(100).max(600_000).default(120_000),
    headers: z.record(z.string(), z.string()).default({}),
    max_tokens: z.number().int().positive().optional(),
    embedding_model: z
      .string()
      .min(1)
      .optional()
      .describe(
        "model for POST /embeddings (OpenAI-compatible only): the gateway's POST /v1/embeddings serves it under this name; memory and remote plugins' TEXT_EMBEDDING use it",
      ),
    transcription_model: z
      .string()
      .min(1)
      .optional()
      .describe("model for POST /audio/transcriptions (OpenAI-compatible only): voice notes and audio become text"),
    image_urls: z
      .enum(["pass", "fetch"])
      .default("pass")
      .describe('https image URLs: "pass" them on for the provider to fetch, or "fetch" them in prx (through [tools.outbound]) and send the bytes, for a server that cannot fetch URLs'),
    model_info: z
      .record(z.string().min(1), ModelInfoSchema)
      .default({})
      .describe('what prx knows of a model: [providers.<name>.model_info."<model>"]; overrides the built-in table'),
  })
  .describe("one LLM provider endpoint");

export const ModelRouteSchema = z.strictObject({
  hint: z.string().min(1).describe("use as model = \"hint:<hint>\""),
  provider: z.string().min(1),
  model: z.string().min(1),
});

export const ReliabilitySchema = z.strictObject({
  retries: z.number().int().min(0).max(10).default(2),
  backoff_ms: z.number().int().min(0).max(60_000).default(500),
  max_backoff_ms: z.number().int().min(0).max(300_000).default(10_000),
  fallback_providers: z.array(z.string().min(1)).default([]),
});

export const AgentSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(128)
    .default("prx")
    .describe("the agent's name; remote plugins see it as runtime.character.name, and their agentId derives from it"),
  bio: z
    .union([z.string(), z.array(z.string())])
    .default("A helpful personal assistant.")
    .describe("who the agent is, in a sentence or a list; remote plugins see it as runtime.character.bio"),
  system_prompt: z
    .string()
    .default("You are prx, a helpful personal assistant. Use tools when they help; answer concisely."),
  max_tool_iterations: z.number().int().min(1).max(100).default(10),
  temperature: z.number().min(0).max(2).default(0.7),
  max_history_messages: z.number().int().min(2).max(1000).default(50),
  image_history_turns: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(4)
    .describe("user turns an image is sent again for; older images in history become their text note"),
});

export const CompactionSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("summarise the older part of a long session when its prompt nears the model's context window"),
  compact_at: z
    .number()
    .min(0.1)
    .max(0.95)
    .default(0.8)
    .describe("share of the model's context window a prompt may reach before the older history is summarised"),
  keep_recent: z
    .number()
    .min(0.05)
    .max(0.8)
    .default(0.3)
    .describe("share of the window the most recent messages, kept word for word beside the summary, may take"),
  summary_max_tokens: z.number().int().min(64).max(32_768).default(1_024).describe("longest summary the model may write"),
  memory_flush: z
    .boolean()
    .default(false)
    .describe("before compacting, one extra model call may keep durable facts with memory_store"),
  tool_result_max_tokens: z
    .number()
    .int()
    .min(100)
    .max(1_000_000)
    .default(8_000)
    .describe("a longer tool result is cut in the prompt with a note (the session keeps it whole)"),
});

export const MemorySchema = z.strictObject({
  backend: z
    .string()
    .regex(/^(sqlite|postgres|none|wasm:.+)$/, 'expected "sqlite", "postgres", "none" or "wasm:<name>"')
    .default("sqlite"),
  auto_recall: z.boolean().default(true).describe("add relevant memories to the prompt of each turn"),
  recall_limit: z.number().int().min(1).max(50).default(5).describe("most memories auto-recall adds to a prompt"),
  recall_max_tokens: z
    .number()
    .int()
    .min(1)
    .max(32_000)
    .default(600)
    .describe("most tokens (estimated: UTF-8 bytes / 4) the auto-recalled memories may take in the prompt"),
  vector_min_similarity: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      "hybrid recall (SQLite, or PostgreSQL with pgvector; the default provider has embedding_model): the least cosine similarity a vector hit needs; each model has its own scale",
    ),
});

/** [tools.outbound]: where fetches made for the model or a user (web_fetch, http_request, image URLs) may go. */
export const OutboundSchema = z.strictObject({
  allow_private: z
    .boolean()
    .default(false)
    .describe("reach private, loopback, link-local and metadata addresses (a service of your own); off by default"),
  allow_addresses: z
    .array(z.union([z.ipv4(), z.ipv6()]))
    .default([])
    .describe('single non-public IP addresses reached anyway, e.g. ["127.0.0.1"] for a service of your own'),
  allow_hosts: z
    .array(z.string().min(1))
    .default([])
    .describe('only these hosts ("example.com", "*.example.com" for its subdomains); empty allows every public host'),
  deny_hosts: z.array(z.string().min(1)).default([]).describe("hosts never fetched, in the same form; wins over allow_hosts"),
});

export const WebSearchBackends = ["searxng", "brave", "mcp"] as const;

/** [tools.web_search]: the search backend web_search asks; without it the tool is not offered. */
export const WebSearchSchema = z
  .strictObject({
    backend: z
      .enum(WebSearchBackends)
      .describe("searxng (its JSON API), brave (the Brave Search API) or mcp (a search tool of an MCP server in [mcp.servers])"),
    url: z
      .url()
      .optional()
      .describe("searxng: the instance's root, e.g. http://127.0.0.1:8888 (required); brave: defaults to the public API"),
    api_key_env: z.string().min(1).optional().describe("brave: the environment variable holding the subscription token (required)"),
    tool: z
      .string()
      .regex(/^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_.-]+$/, "the MCP tool's name as prx offers it: mcp__<server>__<tool>")
      .optional()
      .describe('mcp: the search tool, named as prx offers it, e.g. "mcp__brave__brave_web_search" (required)'),
    query_arg: z.string().min(1).optional().describe("mcp: the tool's argument that takes the query (default \"query\")"),
    count_arg: z.string().min(1).optional().describe("mcp: the tool's argument that takes the number of results, if it has one"),
    max_results: z.number().int().min(1).max(20).default(5).describe("results given to the model per search"),
    timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  })
  .refine((search) => search.backend !== "searxng" || search.url !== undefined, {
    message: "searxng needs url, the instance's root (e.g. http://127.0.0.1:8888)",
    path: ["url"],
  })
  .refine((search) => search.backend !== "mcp" || search.tool !== undefined, {
    message: 'mcp needs tool, the MCP search tool as prx names it (e.g. "mcp__brave__brave_web_search")',
    path: ["tool"],
  })
  .refine((search) => search.backend !== "brave" || search.api_key_env !== undefined, {
    message: 'brave needs api_key_env, the environment variable holding the subscription token (e.g. "BRAVE_API_KEY")',
    path: ["api_key_env"],
  });

export const ToolsSchema = z.strictObject({
  outbound: OutboundSchema.default(OutboundSchema.parse({})),
  web_search: WebSearchSchema.optional(),
  message_send: MessageSendSchema.default(MessageSendSchema.parse({})),
  delegate: DelegateSchema.default(DelegateSchema.parse({})),
  http_allowlist: z.array(z.string().min(1)).default([]).describe("URL prefixes http_request may fetch; a trailing * is a prefix match"),
  http_timeout_ms: z.number().int().min(100).max(300_000).default(15_000),
  http_max_response_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  file_max_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  shell_enabled: z.boolean().default(false),
  shell_allowlist: z.array(z.string().min(1)).default([]).describe("program names the shell tool may run"),
  shell_timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
  disabled: z.array(z.string()).default([]).describe("built-in tool names to hide from the model"),
  enabled: z
    .array(
      z.enum(OPT_IN_TOOL_NAMES, {
        error: `only opt-in tools go here (${OPT_IN_TOOL_NAMES.join(", ")}); the other tools are offered when they can run`,
      }),
    )
    .default([])
    .describe("opt-in tools offered to the model (wasm_plugins_manage); the CLI and API reach them either way"),
});

export const AutonomyLevels = ["read_only", "supervised", "full"] as const;
export const ToolPermissions = ["allow", "ask", "deny"] as const;

/** `[autonomy]`: which tool calls run on their own, which wait for the owner's approval, which are refused. */
export const AutonomySchema = z.strictObject({
  level: z
    .enum(AutonomyLevels)
    .default("supervised")
    .describe("read_only: only read tools run; supervised: other tools wait for the owner's approval; full: nothing is asked"),
  approval_timeout_s: z
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(300)
    .describe("how long a tool call waits for an approval; no answer is a denial the model is told about"),
  tools: z
    .record(z.string().regex(/^[A-Za-z0-9_.:*-]{1,128}$/, "a tool name, or a pattern with *"), z.enum(ToolPermissions))
    .default({})
    .describe('per-tool overrides of the level: { shell = "ask", http_request = "allow", "mcp__fs__*" = "deny" }'),
});

export const GatewaySchema = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(0).max(65_535).default(16_830),
  allow_public_bind: z.boolean().default(false),
  require_pairing: z.boolean().default(true),
  pairing_code_ttl_s: z.number().int().min(30).max(86_400).default(600),
  max_body_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  rate_limit_per_minute: z.number().int().min(1).default(120).describe("requests per minute per client address"),
  rate_limit_per_token_per_minute: z.number().int().min(1).default(600),
  idempotency_ttl_s: z.number().int().min(60).default(86_400),
  responses_ttl_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(30)
    .describe("how long a stored Responses API answer (store: true) can be read and chained; then it is deleted"),
  shutdown_grace_ms: z.number().int().min(0).max(600_000).default(10_000),
  model_aliases: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .describe('OpenAI API model names answered by a served model, e.g. { "gpt-4o" = "gpt-4o-mini" }'),
});

export const PluginGrantSchema = z.strictObject({
  enabled: z.boolean().default(true),
  grant: z.array(z.string().min(1)).default([]).describe("sensitive permissions granted, e.g. http-outbound"),
  config: z.record(z.string(), z.string()).default({}).describe("overrides of the manifest's [config]"),
  settings: z
    .record(z.string().min(1), z.json())
    .default({})
    .describe("remote (elizaOS) plugins: runtime.getSetting values, any TOML value (tables and arrays reach the plugin as objects)"),
  secrets: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .describe("remote plugins: setting name -> environment variable holding its value (read when the plugin is admitted)"),
  tools_owner: z
    .boolean()
    .default(false)
    .describe("when plugins declare the same tool name, this one serves it (else none of them does)"),
  tool_names: z
    .record(z.string(), z.string().regex(TOOL_NAME_PATTERN, `a tool name is ${TOOL_NAME_RULE}`))
    .default({})
    .describe("renames of this plugin's tools: the name it declares -> the name the model sees"),
});


/** `[channels.<name>]`: one channel process. Secrets are read from the environment variables named here. */
export const ChannelConfigSchema = z
  .strictObject({
    kind: z.enum(ChannelKinds).optional().describe("platform; defaults to the channel's name"),
    enabled: z.boolean().default(false).describe("the gateway runs and supervises this channel process"),
    token_env: z.string().min(1).optional().describe("environment variable holding the bot token / access token"),
    secret_env: z
      .string()
      .min(1)
      .optional()
      .describe("environment variable holding the signing secret (webhook, Slack Events API, Telegram webhook secret), IRC's server password, email's mail password, LINE's channel secret or Google Chat's service account key (its JSON)"),
    app_token_env: z.string().min(1).optional().describe("Slack Socket Mode: environment variable holding the xapp- token"),
    api_base_url: z.url().optional().describe("platform API root (tests, self-hosted servers, Matrix homeserver)"),
    mode: z
      .enum(["polling", "webhook", "socket", "events"])
      .optional()
      .describe("telegram: polling (default) | webhook; slack: socket (default) | events"),
    callback_url: z.url().optional().describe("webhook: POST replies here (signed) instead of in the response"),
    dm_policy: z.enum(DmPolicies).default("pairing"),
    group_policy: z.enum(GroupPolicies).default("mention"),
    allow: z.array(z.string().min(1)).default([]).describe("sender ids always allowed"),
    owners: z
      .array(z.string().min(1))
      .default([])
      .describe("sender ids of the owner: they answer tool approvals asked in a chat (besides pairings marked owner)"),
    allow_bots: z.boolean().default(false).describe("answer messages sent by bots (off: no bot-to-bot loops)"),
    poll_timeout_s: z.number().int().min(0).max(60).default(30).describe("long-poll timeout (telegram, matrix)"),
    verify_token_env: z
      .string()
      .min(1)
      .optional()
      .describe("whatsapp: environment variable holding the verify token of the webhook's GET handshake; feishu: the Verification Token"),
    phone_number_id: z.string().regex(/^\d{1,32}$/).optional().describe("whatsapp: the business phone number's id (replies are sent from it)"),
    api_version: z
      .string()
      .regex(/^v\d{1,3}\.\d{1,2}$/)
      .optional()
      .describe("whatsapp: Graph API version of every call (default v21.0)"),
    template: z
      .string()
      .regex(/^[a-z0-9_]{1,512}$/)
      .optional()
      .describe("whatsapp: approved template sent when a reply falls outside the 24-hour window (unset: the reply fails with a clear error)"),
    template_language: z.string().min(2).max(16).optional().describe("whatsapp: the template's language code (default en_US)"),
    account: z.string().min(1).max(64).optional().describe("signal: the account (phone number) of the signal-cli daemon"),
    app_id: z.string().min(1).max(128).optional().describe("teams: the bot's Microsoft App ID (the audience of inbound tokens); feishu: the App ID (cli_...)"),
    tenant_id: z.string().min(1).max(128).optional().describe("teams: the tenant of a single-tenant bot (default botframework.com)"),
    openid_url: z.url().optional().describe("teams: OpenID metadata of the Bot Framework (tests, sovereign clouds)"),
    token_url: z.url().optional().describe("teams, googlechat: OAuth token endpoint (tests, sovereign clouds; googlechat defaults to the key's token_uri)"),
    server: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}:\d{1,5}$/, "host:port")
      .optional()
      .describe("irc: the server as host:port"),
    tls: z.boolean().optional().describe("irc: connect with TLS (default true)"),
    nick: z
      .string()
      .regex(/^[A-Za-z[\]\\`_^{|}][A-Za-z0-9[\]\\`_^{|}-]{0,29}$/, "an IRC nickname")
      .optional()
      .describe("irc: the bot's nickname"),
    join: z
      .array(z.string().regex(/^[#&][^\s,\x07]{1,49}$/, "an IRC channel name"))
      .optional()
      .describe("irc: channels joined on connect"),
    imap_server: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}:\d{1,5}$/, "host:port")
      .optional()
      .describe("email: the IMAP server as host:port (port 993: implicit TLS, else STARTTLS)"),
    smtp_server: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,253}:\d{1,5}$/, "host:port")
      .optional()
      .describe("email: the SMTP submission server as host:port (port 465: implicit TLS, else STARTTLS)"),
    imap_tls: z.enum(["implicit", "starttls"]).optional().describe("email: how the IMAP connection is secured, when its port does not say"),
    smtp_tls: z.enum(["implicit", "starttls"]).optional().describe("email: how the SMTP connection is secured, when its port does not say"),
    address: z.email().optional().describe("email: the bot's address (replies come from it; mail from it is never answered)"),
    username: z.string().min(1).max(256).optional().describe("email: the IMAP and SMTP login (default: address)"),
    folder: z.string().min(1).max(256).optional().describe("email: the IMAP folder read for new mail (default INBOX)"),
    ca_file: z
      .string()
      .min(1)
      .optional()
      .describe("email: a PEM file of the certificate authority of self-hosted servers (default: the system's)"),
    encrypt_key_env: z
      .string()
      .min(1)
      .optional()
      .describe("feishu: environment variable holding the Encrypt Key (events encrypted and signed; recommended)"),
    project_number: z
      .string()
      .regex(/^\d{1,32}$/, "the Cloud project's number")
      .optional()
      .describe("googlechat: the Cloud project number, when the app's authentication audience is Project Number"),
    endpoint_url: z.url().optional().describe("googlechat: the app's HTTP endpoint URL, when the authentication audience is HTTP endpoint URL"),
    certs_url: z
      .url()
      .optional()
      .describe("googlechat: where Google's signing certificates (kid -> PEM) are read (tests; default by the audience)"),
    data_api_url: z.url().optional().describe("line: root of the content API (default https://api-data.line.me; tests)"),
  })
  .describe("one channel process");

/** `[storage]`: where sessions, memory, tokens, idempotency keys, plugin KV, cron state and channel state live. */
export const StorageSchema = z.strictObject({
  backend: z.enum(["sqlite", "postgres"]).default("sqlite").describe("sqlite: data/prx.db (embedded); postgres: shared by replicas"),
  url_env: z.string().min(1).default("DATABASE_URL").describe("environment variable holding the postgres:// URL"),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "a lower-case SQL identifier")
    .default("public")
    .describe("PostgreSQL schema holding prx's tables (created when missing)"),
  pool_max: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(8)
    .describe("PostgreSQL connections per process for the stores, and as many for session leases (turns running at once)"),
  synchronous_commit: z
    .boolean()
    .default(false)
    .describe(
      "wait for PostgreSQL to flush each commit to disk; false (default) is the durability of the SQLite default " +
        "(WAL, synchronous=NORMAL): a replica dying loses nothing committed, a database server crash may lose its last commits",
    ),
});

/** `[bus]`: how plugin events and prx.lifecycle.* reach other replicas; also shared rate limits and reload fan-out. */
export const BusSchema = z.strictObject({
  backend: z.enum(["local", "redis"]).default("local").describe("local: this process only; redis: every replica"),
  url_env: z.string().min(1).default("REDIS_URL").describe("environment variable holding the redis:// URL"),
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9:._-]{1,64}$/, "1-64 of A-Z a-z 0-9 : . _ -")
    .default("prx")
    .describe("prefix of every Redis key and channel (replicas of one deployment share it)"),
});

/** `[telemetry]`: OpenTelemetry traces of turns, model and tool calls, plugin calls and channel deliveries. */
export const TelemetrySchema = z.strictObject({
  otlp_endpoint: z
    .url()
    .optional()
    .describe("OTLP/HTTP receiver, e.g. http://127.0.0.1:4318: traces are POSTed to <endpoint>/v1/traces; unset: off"),
  protocol: z
    .enum(["http/json", "http/protobuf"])
    .default("http/json")
    .describe("OTLP/HTTP's encoding: http/json (application/json) or http/protobuf (application/x-protobuf)"),
  service_name: z.string().min(1).max(256).default("prx").describe("the resource's service.name"),
  headers: z
    .record(
      z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, "an HTTP header name"),
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name (letters, digits, _)"),
    )
    .default({})
    .describe('headers of each export, each from an environment variable, e.g. { authorization = "OTLP_AUTH_HEADER" }'),
  sample_ratio: z.number().min(0).max(1).default(1).describe("share of new traces recorded (a caller's traceparent decides for its trace)"),
});

const usdLimit = (period: string) =>
  z.number().positive().max(1_000_000).optional().describe(`USD ${period}: a turn is refused once this much is spent`);

/** Daily and monthly limits of one scope. */
export const BudgetLimitsSchema = z.strictObject({
  daily_usd: usdLimit("per day"),
  monthly_usd: usdLimit("per calendar month"),
});

/** `[budget]`: limits on what model calls cost, in USD (from model prices: models of unknown price count nothing). */
export const BudgetSchema = z.strictObject({
  daily_usd: usdLimit("per day, all channels together"),
  monthly_usd: usdLimit("per calendar month, all channels together"),
  time_zone: z
    .string()
    .refine(isTimeZone, "an IANA time zone such as UTC or Europe/Berlin")
    .default("UTC")
    .describe("where days and months begin, for budgets and daily usage totals"),
  channels: z
    .record(z.string().min(1), BudgetLimitsSchema)
    .default({})
    .describe('limits per channel: [budget.channels.<channel>] ("cli", "chat", "gateway", "openai", "webhook", "mcp", or a [channels] name)'),
  senders: z
    .record(z.string().regex(/^[^:]+:.+$/, '"<channel>:<user id>"'), BudgetLimitsSchema)
    .default({})
    .describe('limits per sender: [budget.senders."<channel>:<user id>"]'),
});

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    // Intl's RangeError for a zone it does not know: the refine reports the key and what it takes
    return false;
  }
}

/** An agent id: `[agents.<id>]`, `model = "agent:<id>"`, `--agent <id>`; also what sessions, memories and usage carry. */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const toolPattern = z.string().regex(/^[A-Za-z0-9_.:*-]{1,128}$/, "a tool name, or a pattern with *");

/** `[agents.<id>]`: one agent of several in one host; what it leaves out comes from `[agent]` and the top level. */
export const AgentProfileSchema = z.strictObject({
  name: z.string().min(1).max(128).optional().describe("the agent's name (default: [agent] name)"),
  bio: z.union([z.string(), z.array(z.string())]).optional().describe("who the agent is (default: [agent] bio)"),
  system_prompt: z.string().optional().describe("the agent's system prompt (default: [agent] system_prompt)"),
  default_provider: z.string().min(1).optional().describe("provider of the agent's turns (default: the top-level default_provider)"),
  default_model: z.string().min(1).optional().describe("model of the agent's turns (default: the top-level default_model)"),
  temperature: z.number().min(0).max(2).optional(),
  tools: z
    .strictObject({
      allow: z.array(toolPattern).optional().describe("only these tools (names or patterns with *) are offered; default: all"),
      deny: z.array(toolPattern).default([]).describe("tools never offered to this agent; wins over allow"),
    })
    .default({ deny: [] })
    .describe("which built-in, plugin, MCP and skill tools the agent may use"),
  skills: z.array(z.string().min(1)).optional().describe("the Agent Skills this agent may use (default: all)"),
  memory_scope: z
    .enum(["own", "shared"])
    .default("shared")
    .describe("own: the agent's memories are its alone and it recalls only those; shared: the workspace's common memory"),
  autonomy: z
    .strictObject({
      level: z.enum(AutonomyLevels).optional(),
      approval_timeout_s: z.number().int().min(1).max(86_400).optional(),
      tools: z.record(toolPattern, z.enum(ToolPermissions)).optional(),
    })
    .optional()
    .describe("overrides of [autonomy] for this agent (its tools table is merged over [autonomy.tools])"),
});

/** `[[bindings]]`: which agent answers an inbound message; the most specific match wins, else `main`. */
export const BindingSchema = z.strictObject({
  agent: z.string().regex(AGENT_ID_PATTERN, "an agent id"),
  channel: z.string().min(1).optional().describe("a [channels] name (or cli, chat, gateway, ...)"),
  peer: z.string().min(1).optional().describe("the sender's platform id (direct messages and groups alike)"),
  group: z.string().min(1).optional().describe("a group or channel chat id"),
});

export const ConfigSchema = z.strictObject({
  default_provider: z.string().min(1).default("offline"),
  default_model: z.string().min(1).default("offline"),
  providers: z.record(z.string().min(1), ProviderConfigSchema).default({}),
  model_routes: z.array(ModelRouteSchema).default([]),
  reliability: ReliabilitySchema.default(ReliabilitySchema.parse({})),
  agent: AgentSchema.default(AgentSchema.parse({})),
  compaction: CompactionSchema.default(CompactionSchema.parse({})),
  memory: MemorySchema.default(MemorySchema.parse({})),
  tools: ToolsSchema.default(ToolsSchema.parse({})),
  autonomy: AutonomySchema.default(AutonomySchema.parse({})),
  gateway: GatewaySchema.default(GatewaySchema.parse({})),
  plugins: z.record(z.string().min(1), PluginGrantSchema).default({}),
  channels: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/), ChannelConfigSchema).default({}),
  mcp: McpConfigSchema.default(McpConfigSchema.parse({})).describe("MCP servers to connect to, and what prx mcp serve exposes"),
  storage: StorageSchema.default(StorageSchema.parse({})),
  bus: BusSchema.default(BusSchema.parse({})),
  budget: BudgetSchema.default(BudgetSchema.parse({})),
  skills: SkillsConfigSchema.default(SkillsConfigSchema.parse({})).describe("Agent Skills: extra_dirs, entries.<name>"),
  agents: z
    .record(z.string().regex(AGENT_ID_PATTERN, "an agent id: lowercase letters, digits, _ and -, at most 32"), AgentProfileSchema)
    .default({})
    .describe("several agents in one host; without any, one agent `main` made of [agent]"),
  bindings: z.array(BindingSchema).default([]).describe("which agent answers which channel, peer or group"),
  telemetry: TelemetrySchema.default(TelemetrySchema.parse({})),
}).superRefine((config, ctx) => {
  config.bindings.forEach((binding, index) => {
    if (binding.agent === "main" || binding.agent in config.agents) return;
    ctx.addIssue({
      code: "custom",
      path: ["bindings", index, "agent"],
      message: `no agent "${binding.agent}": add an [agents.${binding.agent}] table, or bind main or one of [agents]`,
    });
  });
});

export type Config = z.infer<typeof ConfigSchema>;
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;
export type ModelInfo = z.infer<typeof ModelInfoSchema>;
export type ModelRoute = z.infer<typeof ModelRouteSchema>;
export type ReliabilityConfig = z.infer<typeof ReliabilitySchema>;
export type AgentConfig = z.infer<typeof AgentSchema>;
export type MemoryConfig = z.infer<typeof MemorySchema>;
export type CompactionConfig = z.infer<typeof CompactionSchema>;
export type ToolsConfig = z.infer<typeof ToolsSchema>;
export type OutboundConfig = z.infer<typeof OutboundSchema>;
export type WebSearchConfig = z.infer<typeof WebSearchSchema>;
export type AutonomyConfig = z.infer<typeof AutonomySchema>;
export type GatewayConfig = z.infer<typeof GatewaySchema>;
export type PluginGrant = z.infer<typeof PluginGrantSchema>;
export type ChannelConfig = z.infer<typeof ChannelConfigSchema>;
export type StorageConfig = z.infer<typeof StorageSchema>;
export type BusConfig = z.infer<typeof BusSchema>;
export type TelemetryConfig = z.infer<typeof TelemetrySchema>;
export type BudgetConfig = z.infer<typeof BudgetSchema>;
export type BudgetLimits = z.infer<typeof BudgetLimitsSchema>;
export type AgentProfile = z.infer<typeof AgentProfileSchema>;
export type Binding = z.infer<typeof BindingSchema>;
export type ChannelKind = (typeof ChannelKinds)[number];

/** The config a fresh workspace behaves as if it had. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({});
}
