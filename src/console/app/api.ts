/** The gateway's API from the browser: bearer token, JSON errors with their hint, SSE over fetch. */

const TOKEN_KEY = "prx.token";

/** An error the gateway answered (`{error: {code, message, hint?}}`), or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The token: sessionStorage by default, localStorage when "remember me" was ticked. */
export const tokens = {
  get(): string | null {
    return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY);
  },
  set(token: string, remember: boolean): void {
    this.clear();
    (remember ? localStorage : sessionStorage).setItem(TOKEN_KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
  },
};

/** Called when the gateway says the token is no longer valid. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

async function failure(response: Response): Promise<ApiError> {
  let body: { error?: { code?: string; message?: string; hint?: string } } = {};
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says enough
  }
  const error = body.error ?? {};
  return new ApiError(response.status, error.code ?? `HTTP_${response.status}`, error.message ?? response.statusText, error.hint);
}

export async function request(path: string, init: RequestInit = {}, token = tokens.get()): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (cause) {
    if ((cause as Error).name === "AbortError") throw cause;
    throw new ApiError(0, "NETWORK", `cannot reach the gateway: ${(cause as Error).message}`, "is prx gateway still running?");
  }
  if (!response.ok) {
    const error = await failure(response);
    if (response.status === 401 && token) onUnauthorized();
    throw error;
  }
  return response;
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await request(path, init)).json() as Promise<T>;
}

export const json = (method: string, body?: unknown): RequestInit => ({
  method,
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** Server-sent events of a response, as they arrive: `{event, data}` with `data` parsed as JSON. */
export async function* events(response: Response): AsyncGenerator<{ event: string; data: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length > 0) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

/** An error box: the message, and the hint (what to do next) under it. */
export function describe(error: unknown): { message: string; hint?: string; code: string } {
  if (error instanceof ApiError) return { message: error.message, code: error.code, ...(error.hint ? { hint: error.hint } : {}) };
  return { message: (error as Error)?.message ?? String(error), code: "ERROR" };
}
