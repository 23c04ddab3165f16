/** The commented config.toml that `prx init` writes. Every value shown is the default unless noted. */
export const CONFIG_TEMPLATE = `# prx configuration. Run \`prx config validate\` after editing; \`prx config schema\` lists every key.
# Secrets never go in this file: providers name the environment variable that holds their key.

# Which provider answers by default. "offline" is built in and needs no key.
default_provider = "offline"
default_model = "offline"

# An OpenAI-compatible provider (OpenAI, OpenRouter, Ollama, vLLM, LM Studio, Groq, Together, DeepSeek, ...).
# Uncomment, export OPENAI_API_KEY, and set default_provider = "openai", default_model = "gpt-4o-mini".
# [providers.openai]
# kind = "openai-compatible"
# base_url = "https://api.openai.com/v1"
# api_key_env = "OPENAI_API_KEY"
# models = ["gpt-4o-mini"]
# timeout_ms = 120000
# embedding_model = "text-embedding-3-small"   # remote plugins' TEXT_EMBEDDING
# transcription_model = "whisper-1"            # voice notes and audio become text
# What prx knows of a model (context window, vision, prices) comes from a built-in table; override any fact:
# [providers.openai.model_info."my-finetune"]
# context_window = 128000                      # tokens read and written in one call
# max_output_tokens = 16384
# vision = false                               # this model gets a text note in place of each image
# input_per_mtok = 0.15                        # USD per million tokens: input, output, cached input
# output_per_mtok = 0.6

# [providers.anthropic]
# kind = "anthropic"
# base_url = "https://api.anthropic.com"
# api_key_env = "ANTHROPIC_API_KEY"
# models = ["claude-sonnet-4-5"]

# Model routes: use model = "hint:fast" to pick a provider and model by purpose.
# [[model_routes]]
# hint = "fast"
# provider = "openai"
# model = "gpt-4o-mini"

[reliability]
retries = 2              # retries per provider on 408, 429, 5xx and network errors
backoff_ms = 500         # first backoff; doubles each retry; Retry-After is honoured
fallback_providers = []  # tried in order when the default provider keeps failing

[agent]
# name = "prx"           # remote (elizaOS) plugins see it as runtime.character.name
# bio = "A helpful personal assistant."
max_tool_iterations = 10
temperature = 0.7
# system_prompt = "You are prx, a helpful personal assistant."

# More agents in the same host (there is always "main", made of [agent]); prx agents import character.json makes one
# of an elizaOS character. [[bindings]] choose which agent answers a channel, a sender (peer) or a group chat.
# [agents.work]
# system_prompt = "You are my work assistant."
# default_model = "gpt-4o"
# memory_scope = "own"   # its memories are its alone ("shared": the workspace's)
# tools = { deny = ["shell"] }
# [[bindings]]
# agent = "work"
# channel = "telegram"
# peer = "123456"

[compaction]
# The prompt is kept within the model's context window (model_info or the built-in table). A session whose prompt
# would pass compact_at of the window has its older messages summarised by the model; every message stays stored.
enabled = true
compact_at = 0.8               # share of the window before the older history is summarised
# keep_recent = 0.3            # share of the window the most recent messages, kept word for word, may take
# memory_flush = false         # before compacting, let the model keep durable facts with memory_store (one extra call)
# tool_result_max_tokens = 8000  # a longer tool result is cut in the prompt with a note (the session keeps it whole)

[memory]
backend = "sqlite"       # "sqlite" (data/prx.db), "postgres" (needs [storage] postgres), "none", or "wasm:<name>"
auto_recall = true       # add relevant memories to each turn's prompt (never those stored as private)
recall_limit = 5         # at most this many memories per turn
recall_max_tokens = 600  # and at most this many tokens of them (estimated as UTF-8 bytes / 4)
# vector_min_similarity = 0.5  # hybrid recall (embedding_model set): least cosine similarity of a vector hit (model-dependent)

[tools]
# The model is offered only the tools that can run: http_request once http_allowlist lists something, shell once it
# is enabled with a non-empty shell_allowlist, web_search once [tools.web_search] names a backend.
http_allowlist = []      # URL prefixes http_request may fetch, e.g. ["https://api.github.com/*"]
shell_enabled = false    # the shell tool is off unless enabled
shell_allowlist = []     # programs the shell tool may run, e.g. ["ls", "git"]
# enabled = ["wasm_plugins_manage"]   # opt in: let the model list, reload and probe plugins (prx plugins probe always can)

# Where web_fetch, http_request and fetched image URLs may go: public addresses only unless allowed here.
# [tools.outbound]
# allow_addresses = ["127.0.0.1"]   # one service of your own on a private or loopback address
# deny_hosts = ["*.internal.example.com"]

# web_search is offered once it has a backend: a SearXNG of your own (its settings.yml must enable the json format)
# [tools.web_search]
# backend = "searxng"
# url = "http://127.0.0.1:8888"
# or Brave Search: backend = "brave" with api_key_env = "BRAVE_API_KEY"
[autonomy]
# read_only: only read tools run; supervised: the other tools wait for your approval (prx chat asks inline, a channel
# asks its owner in the chat, the console and GET /api/approvals list them); full: nothing is asked.
level = "supervised"
approval_timeout_s = 300 # no answer in time is a denial the model is told about
# [autonomy.tools]       # per-tool overrides: "allow", "ask" or "deny"; a trailing or inner * matches any text
# shell = "ask"
# http_request = "allow"
# "mcp__fs__*" = "deny"

[gateway]
host = "127.0.0.1"
port = 16830
require_pairing = true   # a one-time code is printed at start; POST /pair exchanges it for a token
# model_aliases = { "gpt-4o" = "gpt-4o-mini" }   # OpenAI API model names answered by a model this gateway serves

# Several gateway replicas and channel hosts: one PostgreSQL for sessions, memory, tokens, idempotency keys, plugin
# KV and cron state, one Redis for events, rate limits, pairing and plugin reloads (see README, "Scale-out").
# [storage]
# backend = "postgres"   # default "sqlite"
# url_env = "DATABASE_URL"
# [bus]
# backend = "redis"      # default "local"
# url_env = "REDIS_URL"

# Limits on what model calls cost (USD, from model prices; prx usage shows what was spent). A turn is refused once
# the day's or the month's spending reaches a limit; the refusal says when it resets.
# [budget]
# daily_usd = 5
# monthly_usd = 50
# time_zone = "UTC"        # where days and months begin
# [budget.channels.telegram]
# daily_usd = 1
# [budget.senders."telegram:123456"]
# monthly_usd = 3

# Agent Skills (SKILL.md folders) are found in <workspace>/skills/ and ~/.agents/skills/; prx skills list shows them.
# [skills]
# extra_dirs = ["~/shared-skills"]
# [skills.entries.some-skill]
# enabled = true
# env = { SOME_API_KEY = { from_env = "SOME_API_KEY" } }

# OpenTelemetry traces of turns, model and tool calls, plugin calls and channel deliveries (OTLP/JSON over HTTP).
# [telemetry]
# otlp_endpoint = "http://127.0.0.1:4318"   # spans go to <endpoint>/v1/traces; unset: off
# headers = { authorization = "OTLP_AUTH_HEADER" }   # header = environment variable holding its value
# sample_ratio = 1
# protocol = "http/json"   # or "http/protobuf"

# Grant sensitive permissions to a plugin:
# [plugins.weather]
# grant = ["http-outbound"]
`;
