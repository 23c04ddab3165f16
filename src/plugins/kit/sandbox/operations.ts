import { EnvelopeSchemas } from "../../../contracts/envelope-schemas.ts";
import type { Stage } from "../../../contracts/envelopes.ts";
import { PrxError } from "../../../core/errors.ts";
import type { CapabilityAdapter } from "../../adapters/types.ts";
import { compilePatterns } from "../../events/patterns.ts";
import { middlewareTest } from "../../probes/index.ts";
import type { CapabilityType } from "../../types.ts";
import type { MiddlewareResultInfo, ProviderReplyInfo, PublishedEventInfo, RecalledMemoryInfo, SandboxRequest, ToolCallResultInfo } from "./protocol.ts";
import type { SessionState } from "./types.ts";
import type { CronAdapter, ProviderAdapter, StorageAdapter, ToolAdapter } from "../../adapters/types.ts";

/** What a test call without the field means: test values for envelopes, a session id, a model name. */
export const TEST_SESSION_ID = "test-session";

export const ENVELOPE_DEFAULTS: { [S in Stage]: Record<string, unknown> } = {
  inbound: { text: "", channel: "test", user_id: "test-user", session_id: TEST_SESSION_ID, metadata: {} },
  llm_request: { messages: [], model: "test-model", temperature: 0, tools: [] },
  llm_response: { text: "", tool_calls: [], model: "test-model", usage: null },
  outbound: { text: "", channel: "test", session_id: TEST_SESSION_ID },
};

function adapterOf<A extends CapabilityAdapter>(session: SessionState, type: CapabilityType, name: string | null, what: string): A {
  const all = (session.loaded.generation.adapters[type] as CapabilityAdapter[]).filter((a) => a.plugin === session.name);
  const named = (a: CapabilityAdapter) => a.capability.name === name || (a.type === "tool" && (a as ToolAdapter).spec.name === name);
  const found = name === null ? all[0] : all.find(named);
  if (!found) {
    const names = all.map((a) => a.capability.name);
    throw new PrxError("PLUGIN_NOT_FOUND", `plugin ${session.name} has no ${what}${name === null ? "" : ` "${name}"`}`, {
      hint: names.length > 0 ? `its ${what}s: ${names.join(", ")}` : `declare a ${type} capability in plugin.toml`,
    });
  }
  return found as A;
}

async function middleware(session: SessionState, stage: Stage, given: Record<string, unknown>): Promise<MiddlewareResultInfo> {
  const envelope = { ...ENVELOPE_DEFAULTS[stage], ...given };
  if (!EnvelopeSchemas[stage].safeParse(envelope).success) {
    throw new PrxError("BAD_REQUEST", `the test's ${stage} envelope does not fit the stage's schema`, {
      hint: "leave out fields you do not need: the sandbox fills them in",
    });
  }
  adapterOf(session, "middleware", null, "middleware");
  const run = await middlewareTest(session.loaded.generation, session.name, stage, envelope);
  if (run.blocked) return { action: "block", reason: run.blocked.reason };
  const failed = run.steps.find((step) => step.ok === false);
  if (failed) return { action: "failed", failure: String(failed.failure), error: String(failed.error) };
  return { action: "continue", envelope: run.output as Record<string, unknown> };
}

async function emit(session: SessionState, topic: string, payload: unknown): Promise<number> {
  const hooks = session.loaded.generation.adapters.hook.filter((h) => h.plugin === session.name);
  let delivered = 0;
  for (const hook of hooks) {
    if (!compilePatterns(hook.patterns)(topic)) continue;
    await hook.deliver(topic, JSON.stringify(payload ?? null));
    delivered++;
  }
  return delivered;
}

type Operation = Exclude<SandboxRequest, { op: "load" }>;

export async function handleRequest(session: SessionState, request: Operation): Promise<unknown> {
  const { generation } = session.loaded;
  switch (request.op) {
    case "tool": {
      const tool = adapterOf<ToolAdapter>(session, "tool", request.name, "tool");
      const messages: string[] = [];
      const result = await tool.call(request.args, {
        sessionId: TEST_SESSION_ID,
        workspace: session.workspace.root,
        signal: new AbortController().signal,
        sendMessage: (text) => messages.push(text),
      });
      return { ok: result.success, output: result.output, error: result.error ?? null, messages } satisfies ToolCallResultInfo;
    }
    case "middleware":
      return middleware(session, request.stage, request.envelope);
    case "emit":
      return emit(session, request.topic, request.payload);
    case "cron":
      return adapterOf<CronAdapter>(session, "cron", request.name, "cron job").job.run();
    case "chat": {
      const provider = adapterOf<ProviderAdapter>(session, "provider", null, "provider");
      const reply = await provider.chat({ messages: request.messages, model: request.model, temperature: request.temperature });
      return { text: reply.text, toolCalls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) } satisfies ProviderReplyInfo;
    }
    case "storage": {
      const backend = adapterOf<StorageAdapter>(session, "storage", null, "storage").backend;
      switch (request.action) {
        case "store":
          return backend.store(request.key ?? "", request.content ?? "", request.category ?? "core", request.sessionId ?? null);
        case "recall":
          return (await backend.recall(request.query ?? "", request.limit ?? 5)).map(
            (e): RecalledMemoryInfo => ({ key: e.key, content: e.content, category: e.category, score: e.score ?? null }),
          );
        case "forget":
          return backend.forget(request.key ?? "");
        case "count":
          return backend.count();
        case "health":
          return backend.health();
      }
      break;
    }
    case "kv":
      if (request.action === "get") {
        const bytes = session.kv.get(request.key ?? "");
        return bytes === undefined ? null : new TextDecoder().decode(bytes);
      }
      if (request.action === "set") return session.kv.set(request.key ?? "", new TextEncoder().encode(request.value ?? ""));
      return session.kv.listKeys(request.prefix ?? "");
    case "logs":
      return [...session.logs];
    case "events":
      return [...session.events] satisfies PublishedEventInfo[];
    case "close":
      return generation.number;
  }
  throw new PrxError("BAD_REQUEST", `unknown sandbox operation`);
}
