// audit-hook: one entry per lifecycle event, "audit:<seq>" in kv, plus "count:<event>" per event name. What an
// entry keeps is picked per event (ids, names, durations, reasons), never the message texts.
import { config, defineHook, kv } from "@prx/kit";

interface AuditEntry {
  seq: number;
  at: string;
  event: string;
  session: string | null;
  detail: Record<string, unknown>;
}

/** The fields kept per event (the agent loop's lifecycle payloads; every one also has session_id and channel). */
const FIELDS: Record<string, readonly string[]> = {
  agent_start: ["channel", "text_length"],
  llm_request: ["model", "messages", "iteration"],
  llm_response: ["model", "tool_calls", "iteration"],
  tool_call_start: ["tool", "id"],
  tool_call: ["tool", "id", "success"],
  middleware_block: ["plugin", "capability", "stage", "reason"],
  turn_complete: ["iterations", "tool_calls", "blocked"],
  agent_stop: ["ok", "blocked", "code"],
  error: ["stage", "code", "message"],
};

function pick(event: string, payload: Record<string, unknown>): Record<string, unknown> {
  const detail: Record<string, unknown> = {};
  for (const field of FIELDS[event] ?? []) if (payload[field] !== undefined) detail[field] = payload[field];
  return detail;
}

export const hookExports = defineHook({
  onEvent(topic, raw) {
    const payload = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
    const event = topic.replace(/^prx\.lifecycle\./, "");
    const seq = kv.increment("seq");
    const session = typeof payload.session_id === "string" ? payload.session_id : null;
    kv.setJson(`audit:${String(seq).padStart(10, "0")}`, { seq, at: new Date().toISOString(), event, session, detail: pick(event, payload) } satisfies AuditEntry);
    kv.increment(`count:${event}`);
    const keep = config.number("keep", 500);
    const keys = kv.keys("audit:");
    for (const old of keys.slice(0, Math.max(0, keys.length - keep))) kv.delete(old);
  },
});
