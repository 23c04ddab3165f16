import { errorMessage } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import type { Logger } from "../../core/logger.ts";
import { keepConnected } from "../reconnect.ts";
import { SocketEventSchema } from "./wire.ts";

export interface MattermostSocketOptions {
  url: string;
  token: string;
  /** An event other than the challenge's answer; awaited in order. */
  onEvent(event: string, data: Record<string, unknown>): Promise<void>;
  logger: Logger;
  signal: AbortSignal;
  onState(connected: boolean, detail: string): void;
}

/**
 * The Mattermost WebSocket: each connection is authenticated with `authentication_challenge` (the token), is
 * connected at its `{status: "OK"}` answer, and hands every event on in order; a dropped or refused connection is
 * opened again with the platform backoff.
 */
export function runMattermostSocket(o: MattermostSocketOptions): Promise<void> {
  return keepConnected({
    what: "Mattermost WebSocket",
    connection: (connected) => connection(o, connected),
    onEnded: (why) => o.onState(false, `reconnecting: ${why}`),
    logger: o.logger,
    signal: o.signal,
  });
}

function connection(o: MattermostSocketOptions, onAuthenticated: () => void): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(o.url);
    let chain = Promise.resolve();
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      o.signal.removeEventListener("abort", abort);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
      resolve(why);
    };
    const abort = () => end("stopping");
    o.signal.addEventListener("abort", abort, { once: true });
    ws.onopen = () => ws.send(JSON.stringify({ seq: 1, action: "authentication_challenge", data: { token: o.token } }));
    ws.onclose = (event) => end(`socket closed (${event.code})`);
    ws.onerror = () => end("socket error");
    ws.onmessage = (message) => {
      let raw: unknown;
      try {
        raw = parseJsonBounded(String(message.data), "frame");
      } catch (error) {
        return o.logger.warn(`Mattermost: a frame that is not JSON was ignored: ${errorMessage(error)}`);
      }
      const frame = SocketEventSchema.safeParse(raw);
      if (!frame.success) return o.logger.warn("Mattermost: a malformed frame was ignored");
      if (frame.data.seq_reply === 1) {
        if (frame.data.status !== "OK") return end(`authentication refused: ${JSON.stringify(frame.data.error ?? frame.data.status)}`);
        onAuthenticated();
        o.onState(true, "connected (WebSocket)");
        return;
      }
      const { event, data } = frame.data;
      if (!event || !data) return;
      chain = chain.then(() => o.onEvent(event, data)).catch((error: unknown) => o.logger.error(`Mattermost: ${event} event not handled: ${errorMessage(error)}`));
    };
  });
}
