/**
 * A JSON answer as every gateway route gives it. Its own module, free of zod: the /health answered before the app
 * is built uses it.
 */
export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
  });
}

/** Read by each Response into its own Headers, never changed: one object serves every answer. */
const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json; charset=utf-8" };
