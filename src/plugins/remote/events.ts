/**
 * Plugin event names <-> event bus topics. Dotted names are bus topics (patterns allowed, e.g.
 * "prx.lifecycle.*"); elizaOS's run event names live under "eliza.<NAME>", where the host publishes them for its
 * turns with elizaOS's payloads (eliza-turn-events.ts) and plugins emitting them publish too; other names live under "remote.<name>",
 * which is also where runtime.emitEvent(name) publishes, so plugins can talk to each other by name.
 */
export const ELIZA_EVENT_TOPICS: Record<string, string> = {
  MESSAGE_RECEIVED: "eliza.MESSAGE_RECEIVED",
  MESSAGE_SENT: "eliza.MESSAGE_SENT",
  RUN_STARTED: "eliza.RUN_STARTED",
  RUN_ENDED: "eliza.RUN_ENDED",
  ACTION_STARTED: "eliza.ACTION_STARTED",
  ACTION_COMPLETED: "eliza.ACTION_COMPLETED",
  MODEL_USED: "eliza.MODEL_USED",
};

/**
 * Where runtime.emitEvent(name) publishes: a dotted name as it is (the host refuses prx.*), one of elizaOS's own
 * event names (MODEL_USED, ...) under "eliza.<name>" (the host's lifecycle topics stay the host's), any other name
 * under "remote.<name>".
 */
export function emitTopic(name: string): string {
  if (name.includes(".")) return name;
  return ELIZA_EVENT_TOPICS[name] ? `eliza.${name}` : `remote.${name}`;
}

export function eventTopic(name: string): string {
  if (name.includes(".")) return name;
  return ELIZA_EVENT_TOPICS[name] ?? `remote.${name}`;
}

/**
 * What a plugin's event handler receives for one bus event (the worker adds `runtime`). An event another remote
 * plugin emitted travels as `{ plugin, name, payload }`; elizaOS handlers read the emitted params at the top level
 * (`emitEvent("X", { noteId })` -> `handler({ runtime, noteId })`), so its keys are spread there too (they win over
 * plugin / name), and `payload` keeps the whole object for handlers written against the envelope.
 */
export function eventParams(busPayload: unknown): unknown {
  if (!busPayload || typeof busPayload !== "object" || Array.isArray(busPayload)) return busPayload;
  const envelope = busPayload as Record<string, unknown>;
  const keys = Object.keys(envelope);
  const isEnvelope =
    keys.length === 3 && typeof envelope.plugin === "string" && typeof envelope.name === "string" && "payload" in envelope;
  const inner = envelope.payload;
  if (!isEnvelope || !inner || typeof inner !== "object" || Array.isArray(inner)) return busPayload;
  return { ...envelope, ...(inner as Record<string, unknown>) };
}
