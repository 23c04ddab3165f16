import { requestIdOf } from "../request-id.ts";
import { withRequestState } from "./state.ts";

/** The response with x-request-id set: in place when its headers are mutable, else a copy. */
export function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set("x-request-id", id);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", id);
    return copy;
  }
}

/**
 * Names each request (the client's sane `X-Request-Id`, else a fresh UUID) and answers it in the response's
 * x-request-id header. Error answers carry it too (middleware/error-response.ts builds them with it).
 */
export function requestId() {
  return withRequestState("prx-request-id")
    .onRequest(function nameRequest({ prx, request }) {
      prx.id = requestIdOf(request);
    })
    .onAfterHandle({ as: "global" }, function answerRequestId({ prx, responseValue, set }) {
      if (prx.done) return undefined;
      if (responseValue instanceof Response) {
        const response = withRequestId(responseValue, prx.id);
        return response === responseValue ? undefined : response;
      }
      (set.headers as Record<string, string>)["x-request-id"] = prx.id;
      return undefined;
    });
}
