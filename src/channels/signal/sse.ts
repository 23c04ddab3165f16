import { PrxError } from "../../core/errors.ts";

/** One Server-Sent Event (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation). */
export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
}

/**
 * The events of a text/event-stream body, in order. A line or an event's data longer than `maxBytes` ends the stream
 * with an error (a daemon gone wrong is not read into memory without bound).
 */
export async function* readSse(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  let dataBytes = 0;
  let id: string | null = null;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) yield { event, data: data.join("\n"), id };
        event = "message";
        data = [];
        dataBytes = 0;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") {
        dataBytes += value.length;
        if (dataBytes > maxBytes) throw new PrxError("CHANNEL_PLATFORM", `signal: an event over ${maxBytes} bytes; reconnecting`);
        data.push(value);
      } else if (field === "event") event = value;
      else if (field === "id" && !value.includes("\0")) id = value;
    }
    if (buffer.length > maxBytes) throw new PrxError("CHANNEL_PLATFORM", `signal: a line over ${maxBytes} bytes; reconnecting`);
  }
}
