/**
 * Plugin-facing types of remote-mode plugins, shaped like elizaOS's Plugin so plugins written for elizaOS run
 * unchanged. Everything that crosses the boundary is JSON.
 */
import type { RuntimeProxyApi } from "./runtime-types.ts";

export type { RuntimeProxyApi } from "./runtime-types.ts";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What a handler sees as its message: an elizaOS Memory. `roomId` is the prx session id. */
export interface Memory {
  id?: string;
  entityId?: string;
  agentId?: string;
  roomId?: string;
  createdAt?: number;
  content: { text?: string; [key: string]: unknown };
  metadata?: Record<string, unknown>;
  /** The vector runtime.searchMemories({ embedding }) compares with (elizaOS sets it from TEXT_EMBEDDING). */
  embedding?: number[];
  similarity?: number | null;
  [key: string]: unknown;
}

export interface State {
  values: Record<string, unknown>;
  data: Record<string, unknown>;
  text: string;
  [key: string]: unknown;
}

export interface Content {
  text?: string;
  actions?: string[];
  [key: string]: unknown;
}

/** Sends an intermediate message to the user of the current turn. */
export type HandlerCallback = (response: Content) => Promise<unknown> | unknown;

export interface ActionResult {
  success?: boolean;
  text?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
  error?: string;
}

export type Validator = (runtime: RuntimeProxyApi, message: Memory, state?: State) => Promise<boolean> | boolean;

export interface ActionExample {
  name: string;
  content: Content;
}

export interface Action {
  name: string;
  description?: string;
  similes?: string[];
  examples?: ActionExample[][];
  /** JSON Schema of the arguments the model passes (prx extension). */
  parameters?: Record<string, unknown>;
  validate?: Validator;
  handler: (
    runtime: RuntimeProxyApi,
    message: Memory,
    state: State | undefined,
    options: Record<string, unknown> | undefined,
    callback: HandlerCallback,
    responses?: Memory[],
  ) => Promise<ActionResult | boolean | void | undefined | string> | ActionResult | boolean | void | string;
}

export interface ProviderResult {
  text?: string;
  values?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

export interface Provider {
  name: string;
  description?: string;
  dynamic?: boolean;
  position?: number;
  private?: boolean;
  get: (
    runtime: RuntimeProxyApi,
    message: Memory,
    state: State,
  ) => Promise<ProviderResult | string> | ProviderResult | string;
}

export interface Evaluator {
  name: string;
  description?: string;
  similes?: string[];
  alwaysRun?: boolean;
  examples?: unknown[];
  validate?: Validator;
  handler: (runtime: RuntimeProxyApi, message: Memory, state?: State) => Promise<unknown> | unknown;
}

/** A file of a multipart/form-data body, as multer hands it to elizaOS route handlers. */
export interface RouteFile {
  fieldname: string;
  originalname: string;
  encoding: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

/** An Express-compatible request: the body parsed by its content type (JSON, form, text, multipart; else a Buffer). */
export interface RouteRequest {
  method: string;
  /** The path inside the plugin's mount, e.g. `/items/42`. */
  path: string;
  /** Path and query string, as Express's req.url. */
  url: string;
  originalUrl: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
  /** Files of a multipart body (routes declared with isMultipart). */
  files?: RouteFile[];
  /** A header by name, case-insensitive (Express's req.get / req.header). */
  get(name: string): string | undefined;
  header(name: string): string | undefined;
}

type RouteListener = (...args: unknown[]) => void;

/** An Express-compatible response, answered once the handler has ended it (or returned); a Readable may pipe into it. */
export interface RouteResponse {
  on(event: string, listener: RouteListener): RouteResponse;
  once(event: string, listener: RouteListener): RouteResponse;
  off(event: string, listener: RouteListener): RouteResponse;
  removeListener(event: string, listener: RouteListener): RouteResponse;
  emit(event: string, ...args: unknown[]): boolean;
  readonly writable: boolean;
  readonly headersSent: boolean;
  statusCode: number;
  status(code: number): RouteResponse;
  setHeader(name: string, value: string | number | readonly string[]): RouteResponse;
  getHeader(name: string): string | undefined;
  removeHeader(name: string): void;
  set(name: string | Record<string, string>, value?: string): RouteResponse;
  header(name: string, value: string): RouteResponse;
  type(contentType: string): RouteResponse;
  writeHead(status: number, headers?: Record<string, string | number>): RouteResponse;
  write(chunk: string | Uint8Array): boolean;
  json(body: unknown): RouteResponse;
  send(body?: unknown): RouteResponse;
  end(chunk?: string | Uint8Array): RouteResponse;
  /** A file inside the plugin's folder (absolute, or relative to options.root or the folder); the host streams it. */
  sendFile(path: string, options?: { root?: string; headers?: Record<string, string> } | ((error?: Error) => void), done?: (error?: Error) => void): void;
  redirect(statusOrUrl: number | string, url?: string): void;
  sendStatus(code: number): RouteResponse;
}

export type RouteHandler = (
  req: RouteRequest,
  res: RouteResponse,
  runtime: RuntimeProxyApi,
) => Promise<unknown> | unknown;

export interface Route {
  type: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  name?: string;
  public?: boolean;
  /** Parse multipart/form-data bodies into req.body and req.files. */
  isMultipart?: boolean;
  handler?: RouteHandler;
  /** elizaOS's descriptor name for the handler; either field works. */
  routeHandler?: RouteHandler;
}

export interface ServiceInstance {
  stop?(): Promise<void> | void;
  [key: string]: unknown;
}

/**
 * A service class: `static serviceType`, `static start`, and optionally `static rpcMethods` (the only methods the host
 * may call; without it the host reaches none, and the service starts with the plugin, as elizaOS services do).
 */
export interface ServiceClass {
  serviceType: string;
  rpcMethods?: readonly string[];
  capabilityDescription?: string;
  start(runtime: RuntimeProxyApi): Promise<object> | object;
  stop?(runtime: RuntimeProxyApi): Promise<void> | void;
}

export type ModelHandler = (runtime: RuntimeProxyApi, params: Record<string, unknown>) => Promise<unknown> | unknown;
export type EventHandler = (payload: Record<string, unknown> & { runtime: RuntimeProxyApi }) => Promise<void> | void;

export interface Plugin {
  name: string;
  description?: string;
  config?: Record<string, string | number | boolean | null>;
  init?: (config: Record<string, string>, runtime: RuntimeProxyApi) => Promise<void> | void;
  actions?: Action[];
  providers?: Provider[];
  evaluators?: Evaluator[];
  services?: ServiceClass[];
  models?: Record<string, ModelHandler>;
  events?: Record<string, EventHandler[]>;
  routes?: Route[];
  [key: string]: unknown;
}
