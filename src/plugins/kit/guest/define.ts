// define*: build the object a capability exports (`toolExports`, `middlewareExports`, ...) from plain functions.
// They parse and serialize the JSON the contract passes as text, and turn thrown errors into what the WIT expects
// (a failed tool result, or the string err of a result).
import type { Envelopes, Stage } from "./envelopes.ts";
import type {
  ChatMessage,
  ChatResponse,
  CronExports,
  HookExports,
  MemoryEntry,
  MiddlewareExports,
  ProviderExports,
  StorageExports,
  ToolExports,
} from "./wit.ts";

/** The message of anything thrown, as the string a WIT result's err carries. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
}

export interface ToolDefinition<A> {
  /** snake_case, the name the model calls the tool by. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Returns the output: a string as it is, anything else as JSON. A throw becomes a failed result with its message. */
  execute(args: A): unknown;
}

export function defineTool<A = Record<string, unknown>>(tool: ToolDefinition<A>): ToolExports {
  const spec = { name: tool.name, description: tool.description, parametersSchema: JSON.stringify(tool.parameters) };
  return {
    getSpec: () => spec,
    execute(argsJson: string) {
      try {
        const output = tool.execute(JSON.parse(argsJson || "{}") as A);
        return { success: true, output: typeof output === "string" ? output : JSON.stringify(output ?? null) };
      } catch (error) {
        return { success: false, output: "", error: errorText(error) };
      }
    },
  };
}

/** What a middleware returns to stop the turn: `reason` becomes the reply. */
export class Block {
  constructor(readonly reason: string) {}
}

export function block(reason: string): Block {
  return new Block(reason);
}

/** Return the envelope (changed or not; nothing: the one received, changes included) or `block(reason)`. */
export type StageHandler<S extends Stage> = (envelope: Envelopes[S]) => Envelopes[S] | Block | void;
export type MiddlewareDefinition = { [S in Stage]?: StageHandler<S> };

export function defineMiddleware(middleware: MiddlewareDefinition): MiddlewareExports {
  return {
    process(stage: string, dataJson: string): string {
      const handler = middleware[stage as Stage] as StageHandler<Stage> | undefined;
      if (!handler) return dataJson;
      try {
        const envelope = JSON.parse(dataJson) as Envelopes[Stage];
        const result = handler(envelope);
        if (result instanceof Block) return JSON.stringify({ action: "block", reason: result.reason });
        return JSON.stringify(result ?? envelope);
      } catch (error) {
        throw errorText(error);
      }
    },
  };
}

export interface HookDefinition {
  /** `payload` is the event's JSON payload, parsed. A throw is counted as the hook's error. */
  onEvent(topic: string, payload: unknown): void;
}

export function defineHook(hook: HookDefinition): HookExports {
  return {
    onEvent(event: string, payloadJson: string): void {
      try {
        hook.onEvent(event, payloadJson ? JSON.parse(payloadJson) : null);
      } catch (error) {
        throw errorText(error);
      }
    },
  };
}

export interface CronDefinition {
  /** Runs on the capability's schedule; what it returns is published as `prx.cron.<plugin>`. */
  run(): string | void;
}

export function defineCron(cron: CronDefinition): CronExports {
  return {
    run(): string {
      try {
        return cron.run() ?? "";
      } catch (error) {
        throw errorText(error);
      }
    },
  };
}

export interface ChatRequest {
  messages: ChatMessage[];
  model: string;
  temperature: number;
}

export interface ProviderDefinition {
  /** The name after `wasm:` in config.toml (`default_provider = "wasm:<name>"`). */
  name: string;
  /** A string is the reply's text; or a ChatResponse with tool calls. */
  chat(request: ChatRequest): string | ChatResponse;
}

export function defineProvider(provider: ProviderDefinition): ProviderExports {
  return {
    name: () => provider.name,
    chat(messages: ChatMessage[], model: string, temperature: number): ChatResponse {
      try {
        const reply = provider.chat({ messages, model, temperature });
        return typeof reply === "string" ? { text: reply, toolCalls: [] } : reply;
      } catch (error) {
        throw errorText(error);
      }
    },
  };
}

export interface StoredMemory {
  key: string;
  content: string;
  category: string;
  sessionId: string | null;
}

export interface StorageDefinition {
  /** The name after `wasm:` in config.toml (`[memory] backend = "wasm:<name>"`). */
  name: string;
  store(entry: StoredMemory): void;
  /** The best matches for `query`, best first, at most `limit`. */
  recall(query: string, limit: number, sessionId: string | null): MemoryEntry[];
  /** True when the key existed. */
  forget(key: string): boolean;
  count(): number;
  health?(): boolean;
}

export function defineStorage(storage: StorageDefinition): StorageExports {
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw errorText(error);
    }
  };
  return {
    name: () => storage.name,
    storeMemory: (key, content, category, sessionId) => guard(() => storage.store({ key, content, category, sessionId })),
    recallMemory: (query, limit, sessionId) => guard(() => storage.recall(query, limit, sessionId)),
    forgetMemory: (key) => guard(() => storage.forget(key)),
    countMemories: () => guard(() => storage.count()),
    healthCheck: () => (storage.health ? storage.health() : true),
  };
}
