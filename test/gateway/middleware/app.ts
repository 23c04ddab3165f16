import { Elysia } from "elysia";
import { errorResponse } from "../../../src/gateway/middleware/error-response.ts";
import { requestState } from "../../../src/gateway/middleware/state.ts";
import type { RecordRequest, RequestState } from "../../../src/gateway/middleware/types.ts";

/** One recorded request, as the middleware tests read it. */
export interface Recorded {
  route: string;
  status: number;
  state: RequestState;
}

/**
 * An Elysia app with the first and the last middleware (request state; error answers) around the one under test:
 * `under(app)` adds it and its routes. `recorded` lists what the error answers recorded.
 */
export function middlewareApp() {
  const recorded: Recorded[] = [];
  const record: RecordRequest = (_request, state, route, status) => {
    if (state.done) return;
    state.done = true;
    recorded.push({ route, status, state });
  };
  const app = new Elysia()
    .use(requestState({ clientAddress: (request) => request.headers.get("x-test-client") ?? "127.0.0.1" }))
    .use(errorResponse({ methodsOf: () => [], clientAddress: () => "127.0.0.1", logger: { error() {}, warn() {}, debug() {} }, record }));
  return { app, recorded, record };
}

export function get(path: string, headers: Record<string, string> = {}): Request {
  return new Request(`http://localhost${path}`, { headers });
}
