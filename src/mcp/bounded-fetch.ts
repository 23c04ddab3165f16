import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { jsonDepthError } from "../core/json/index.ts";

/** The end of one server-sent event: a blank line, in any of the line endings SSE allows. */
const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

/**
 * The fetch of the SDK's HTTP transports for url server `server`: an answer nested deeper than MAX_JSON_DEPTH never
 * reaches the SDK's parser. A JSON answer fails the request naming the limit; an event stream errors at the first
 * such event (the SDK reports the stream lost, so the calls waiting on it fail and prx reconnects).
 */
export function boundedFetch(server: string, inner: FetchLike = fetch): FetchLike {
  const what = `MCP server "${server}" sent a message`;
  return async (url, init) => {
    const response = await inner(url, init);
    const type = response.headers.get("content-type") ?? "";
    if (!response.body) return response;
    const rewrap = (body: ReadableStream<Uint8Array> | string) =>
      new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    if (type.includes("text/event-stream")) return rewrap(response.body.pipeThrough(eventsWithin(what)));
    if (!type.includes("json")) return response;
    const text = await response.text();
    const deep = jsonDepthError(text, what);
    if (deep) throw deep;
    return rewrap(text);
  };
}

/** Passes an event stream's bytes on unchanged, checking each whole event before the chunk that ends it. */
function eventsWithin(what: string): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const events = pending.split(EVENT_END);
      pending = events.pop()!;
      for (const event of events) {
        const deep = jsonDepthError(event, what);
        if (deep) return controller.error(deep);
      }
      controller.enqueue(chunk);
    },
  });
}
