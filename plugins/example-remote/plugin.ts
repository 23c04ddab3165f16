import type { Action, Plugin, Provider, Route, RuntimeProxyApi } from "prx/worker-runtime";

/** Keeps a count of notes per session; reachable from the host only through rpcMethods. */
export class NotesService {
  static serviceType = "NOTES";
  static rpcMethods = ["count", "list"] as const;
  static capabilityDescription = "Counts notes remembered by REMEMBER_NOTE";
  static started = 0;

  private readonly notes: Array<{ id: string; text: string; sessionId: string | null }> = [];

  static async start(_runtime: RuntimeProxyApi): Promise<NotesService> {
    NotesService.started += 1;
    return new NotesService();
  }

  add(id: string, text: string, sessionId: string | null): void {
    this.notes.push({ id, text, sessionId });
  }

  count(): number {
    return this.notes.length;
  }

  list(): Array<{ id: string; text: string }> {
    return this.notes.map(({ id, text }) => ({ id, text }));
  }

  /** Not in rpcMethods: the host cannot call it. */
  clear(): void {
    this.notes.length = 0;
  }

  stop(): void {
    this.notes.length = 0;
  }
}

const rememberNote: Action = {
  name: "REMEMBER_NOTE",
  similes: ["SAVE_NOTE", "NOTE_THIS"],
  description: "Remember a short note for the user; the note is stored in prx memory and can be recalled later.",
  parameters: {
    type: "object",
    properties: { text: { type: "string", description: "the note to remember" } },
    required: ["text"],
  },
  examples: [
    [
      { name: "user", content: { text: "remember that the milk is in the fridge" } },
      { name: "assistant", content: { text: "Noted: the milk is in the fridge", actions: ["REMEMBER_NOTE"] } },
    ],
  ],
  validate: async (_runtime, message) =>
    typeof message.content.text === "string" && message.content.text.trim().length > 0,
  handler: async (runtime, message, _state, options, callback) => {
    // the model's arguments arrive as options; message is the user's message that led to the call
    const text = String(typeof options?.text === "string" ? options.text : message.content.text).trim();
    const id = await runtime.createMemory(
      { roomId: message.roomId, content: { text, source: "example-remote" }, metadata: { kind: "note" } },
      "notes",
    );
    const notes = await runtime.getService<NotesService>("NOTES");
    notes?.add(id, text, message.roomId ?? null);
    const greeting = (await runtime.getSetting("GREETING")) ?? "Noted";
    await callback({ text: `${greeting}: ${text}`, actions: ["REMEMBER_NOTE"] });
    await runtime.emitEvent("NOTE_SAVED", { id, text });
    return { success: true, text: `remembered note ${id}`, data: { id } };
  },
};

const timeOfDay: Provider = {
  name: "TIME_OF_DAY",
  description: "The current time of day, so the agent can greet appropriately",
  get: async () => {
    const hour = new Date().getHours();
    const part = hour < 12 ? "morning" : hour < 18 ? "afternoon" : "evening";
    return { text: `It is ${part} (${new Date().toISOString()}).`, values: { partOfDay: part } };
  },
};

const notesRoute: Route = {
  type: "GET",
  path: "/notes",
  name: "list-notes",
  handler: async (_req, res, runtime) => {
    const notes = await runtime.getService<NotesService>("NOTES");
    res.status(200).json({ notes: notes?.list() ?? [], saved: await runtime.getSetting("lastSaved") });
  },
};

/** Answers without a token (`public: true`): what a load balancer or an uptime check may call. */
const healthRoute: Route = {
  type: "GET",
  path: "/health",
  name: "health",
  public: true,
  handler: (_req, res) => void res.json({ ok: true }),
};

export const exampleRemotePlugin: Plugin = {
  name: "example-remote",
  description: "Remembers notes, tells the time of day, and lists notes over HTTP",
  actions: [rememberNote],
  providers: [timeOfDay],
  services: [NotesService],
  routes: [notesRoute, healthRoute],
  events: {
    NOTE_SAVED: [
      async ({ runtime, payload }) => {
        await runtime.setSetting("lastSaved", (payload as { id?: string } | undefined)?.id ?? null);
      },
    ],
  },
  init: async (config) => {
    if (!config.GREETING) throw new Error("setting GREETING is required");
  },
};
