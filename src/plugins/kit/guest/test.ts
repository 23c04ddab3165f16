// @prx/kit/test: load the plugin of this folder into a real prx sandbox (the runtime's own loader and adapters, host
// imports backed by a throw-away workspace) and call it from `bun test`. `prx plugins test` runs the tests with the
// bun built into prx; plain `bun test` works too when `prx` is on PATH (or PRX_BIN names it).
import type { Envelopes, Stage } from "./envelopes.ts";
import type {
  LoadedPlugin,
  MiddlewareResult,
  ProviderReply,
  PublishedEvent,
  RecalledMemory,
  ToolCallResult,
} from "./harness-types.ts";

export type * from "./harness-types.ts";

// The few Bun and process members used here, declared locally so a plugin folder type-checks without @types/bun.
interface SandboxProcess {
  send(message: unknown): void;
  kill(): void;
  readonly exited: Promise<number>;
}
interface FetchRequest {
  method: string;
  url: string;
  headers: { forEach(fn: (value: string, key: string) => void): void };
  text(): Promise<string>;
}
declare const Bun: {
  serve(options: { hostname: string; port: number; fetch(request: FetchRequest): Promise<unknown> }): { port: number; stop(force?: boolean): void };
  spawn(
    cmd: string[],
    options: {
      env: Record<string, string | undefined>;
      stdin: "ignore";
      stdout: "inherit";
      stderr: "inherit";
      serialization: "json";
      ipc(message: unknown): void;
    },
  ): SandboxProcess;
  which(command: string): string | null;
};
declare const process: { env: Record<string, string | undefined>; cwd(): string };
declare const Response: new (body: string, init: { status: number; headers: Record<string, string> }) => unknown;

export interface LoadOptions {
  /** The plugin directory; default: the current directory. It is built first when its sources changed. */
  dir?: string;
  /** Values over the manifest's `[config]`, as `[plugins.<name>.config]` in config.toml would set them. */
  config?: Record<string, string>;
  /** Permissions to grant; default: every permission the manifest declares. */
  grant?: string[];
}

export interface TestPlugin extends LoadedPlugin {
  /** A tool of the plugin (the first one when no name is given), called as the model would call it. */
  tool(name?: string): { call(args?: Record<string, unknown>): Promise<ToolCallResult> };
  /** The plugin's middleware on one stage; missing envelope fields get test values. */
  middleware<S extends Stage>(stage: S, envelope?: Partial<Envelopes[S]>): Promise<MiddlewareResult<S>>;
  /** Delivers an event to every hook of the plugin whose patterns match the topic; returns how many got it. */
  emit(topic: string, payload?: unknown): Promise<number>;
  /** Runs a cron job of the plugin (the first one when no name is given); returns its output. */
  runCron(name?: string): Promise<string>;
  /** Asks the plugin's provider; a string is one user message. */
  chat(messages: string | { role: string; content: string }[], options?: { model?: string; temperature?: number }): Promise<ProviderReply>;
  /** The plugin's storage backend, as prx's memory calls it. */
  storage: {
    store(key: string, content: string, category?: string, sessionId?: string | null): Promise<void>;
    recall(query: string, limit?: number): Promise<RecalledMemory[]>;
    forget(key: string): Promise<boolean>;
    count(): Promise<number>;
    health(): Promise<boolean>;
  };
  /** The plugin's own key-value store in the sandbox workspace. */
  kv: {
    get(key: string): Promise<string | undefined>;
    set(key: string, value: string): Promise<void>;
    keys(prefix?: string): Promise<string[]>;
  };
  /** The plugin's log lines so far. */
  logs(): Promise<string[]>;
  /** Events the plugin published so far. */
  events(): Promise<PublishedEvent[]>;
  /** Stops the sandbox (it also ends with the test process). */
  close(): Promise<void>;
}

/** How to start prx: PRX_BIN (with PRX_ENTRY, the script of a prx run from source, after it), else `prx` on PATH. */
function prxCommand(): string[] {
  const named = process.env.PRX_BIN;
  if (named) return process.env.PRX_ENTRY ? [named, process.env.PRX_ENTRY] : [named];
  const found = Bun.which("prx");
  if (!found) throw new Error("@prx/kit/test needs prx: run the tests with `prx plugins test`, or put prx on PATH (or set PRX_BIN)");
  return [found];
}

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { code: string; message: string } };

/** Starts a sandbox process for the plugin in `dir` and loads it there. */
export async function loadPlugin(options: LoadOptions = {}): Promise<TestPlugin> {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 1;
  let ended: Error | null = null;
  const env: Record<string, string | undefined> = { ...process.env, BUN_BE_BUN: undefined };
  const child = Bun.spawn([...prxCommand(), "__plugin-sandbox"], {
    env,
    stdin: "ignore",
    stdout: "inherit",
    stderr: "inherit",
    serialization: "json",
    ipc(message: unknown) {
      const reply = message as Reply;
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if (!waiter) return;
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new Error(`${reply.error.code}: ${reply.error.message}`));
    },
  });
  void child.exited.then((code) => {
    ended = new Error(`the prx plugin sandbox exited (code ${code})`);
    for (const waiter of pending.values()) waiter.reject(ended);
    pending.clear();
  });
  const call = <T>(op: string, args: Record<string, unknown> = {}): Promise<T> => {
    if (ended) return Promise.reject(ended);
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, op, ...args });
    });
  };
  let loaded: LoadedPlugin;
  try {
    loaded = await call<LoadedPlugin>("load", {
      dir: options.dir ?? process.cwd(),
      config: options.config ?? {},
      ...(options.grant ? { grant: options.grant } : {}),
    });
  } catch (error) {
    // nothing to test in this sandbox: end it now rather than with the test process
    child.kill();
    throw error;
  }
  return {
    ...loaded,
    tool: (name) => ({ call: (args = {}) => call<ToolCallResult>("tool", { name: name ?? null, args }) }),
    middleware: <S extends Stage>(stage: S, envelope: Partial<Envelopes[S]> = {}) =>
      call<MiddlewareResult<S>>("middleware", { stage, envelope }),
    emit: (topic, payload = {}) => call<number>("emit", { topic, payload }),
    runCron: (name) => call<string>("cron", { name: name ?? null }),
    chat: (messages, opts = {}) =>
      call<ProviderReply>("chat", {
        messages: typeof messages === "string" ? [{ role: "user", content: messages }] : messages,
        model: opts.model ?? "test-model",
        temperature: opts.temperature ?? 0,
      }),
    storage: {
      store: (key, content, category = "core", sessionId = null) => call<void>("storage", { action: "store", key, content, category, sessionId }),
      recall: (query, limit = 5) => call<RecalledMemory[]>("storage", { action: "recall", query, limit }),
      forget: (key) => call<boolean>("storage", { action: "forget", key }),
      count: () => call<number>("storage", { action: "count" }),
      health: () => call<boolean>("storage", { action: "health" }),
    },
    kv: {
      get: async (key) => (await call<string | null>("kv", { action: "get", key })) ?? undefined,
      set: (key, value) => call<void>("kv", { action: "set", key, value }),
      keys: (prefix = "") => call<string[]>("kv", { action: "keys", prefix }),
    },
    logs: () => call<string[]>("logs"),
    events: () => call<PublishedEvent[]>("events"),
    async close() {
      if (ended) return;
      // the sandbox answers, then exits
      await call<void>("close");
    },
  };
}

/** A request the fake server received. */
export interface FakeRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  json<T = unknown>(): T;
}

/** What the fake server answers: a string body as it is, anything else as JSON. */
export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>`: give it to the plugin (config) and allow 127.0.0.1 in its http_allowlist. */
  url: string;
  requests: FakeRequest[];
  close(): void;
}

/** An HTTP server on 127.0.0.1 for a plugin that calls an API through http-outbound to talk to in its tests. */
export function fakeServer(handler: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>): FakeServer {
  const requests: FakeRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(raw) {
      const headers: Record<string, string> = {};
      raw.headers.forEach((value, key) => (headers[key.toLowerCase()] = value));
      const path = raw.url.replace(/^[a-z]+:\/\/[^/]+/i, "") || "/";
      const body = await raw.text();
      const request: FakeRequest = { method: raw.method, path, headers, body, json: <T>() => JSON.parse(body) as T };
      requests.push(request);
      const answer = await handler(request);
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? null);
      const type = typeof answer.body === "string" ? "text/plain" : "application/json";
      return new Response(text, { status: answer.status ?? 200, headers: { "content-type": type, ...answer.headers } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, close: () => server.stop(true) };
}
