import { errorMessage } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import type { Logger } from "../../core/logger.ts";
import { Backoff, sleep } from "../../core/supervise/index.ts";
import { PLATFORM_BACKOFF } from "../limits.ts";
import { SlackSocketFrameSchema } from "./wire.ts";

export interface SlackSocketOptions {
  /** apps.connections.open: a fresh WebSocket URL for each connection. */
  open(): Promise<string>;
  /** Store the event; the envelope is acknowledged once this resolves (a crash before it: Slack redelivers). */
  onEvent(payload: unknown): Promise<void>;
  logger: Logger;
  signal: AbortSignal;
  onState(connected: boolean, detail: string): void;
}

/**
 * Slack Socket Mode (https://api.slack.com/apis/socket-mode): one WebSocket from apps.connections.open at a time;
 * `hello` means connected; each `events_api` envelope is acknowledged with `{envelope_id}` after it is stored;
 * `disconnect` (refresh_requested, link_disabled, warning) and a dropped socket open a new connection, with backoff
 * when connecting fails.
 */
export async function runSlackSocket(o: SlackSocketOptions): Promise<void> {
  const backoff = new Backoff(PLATFORM_BACKOFF);
  while (!o.signal.aborted) {
    let url: string;
    try {
      url = await o.open();
    } catch (error) {
      const wait = (error as { retryAfterMs?: number }).retryAfterMs ?? backoff.next();
      o.onState(false, `apps.connections.open failed: ${errorMessage(error)}`);
      o.logger.warn(`Socket Mode: could not open a connection, retrying in ${wait} ms: ${errorMessage(error)}`);
      await sleep(wait, o.signal);
      continue;
    }
    const why = await connection(url, o, () => backoff.reset());
    if (o.signal.aborted) return;
    o.onState(false, `reconnecting: ${why}`);
    o.logger.info(`Socket Mode connection ended (${why}); reconnecting`);
    if (why !== "refresh requested by Slack") await sleep(backoff.next(), o.signal);
  }
}

/** One connection; resolves with why it ended. */
function connection(url: string, o: SlackSocketOptions, onHello: () => void): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
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
    ws.onclose = (event) => end(`socket closed (${event.code})`);
    ws.onerror = () => end("socket error");
    ws.onmessage = (event) => {
      let raw: unknown;
      try {
        raw = parseJsonBounded(String(event.data), "frame");
      } catch (error) {
        return o.logger.warn(`Socket Mode: a frame that is not JSON was ignored: ${errorMessage(error)}`);
      }
      const parsed = SlackSocketFrameSchema.safeParse(raw);
      if (!parsed.success) return o.logger.warn("Socket Mode: a malformed frame was ignored");
      const frame = parsed.data as { type: string; envelope_id?: string; payload?: unknown; reason?: string };
      if (frame.type === "hello") {
        onHello();
        o.onState(true, "connected (Socket Mode)");
        return;
      }
      if (frame.type === "disconnect") return end(frame.reason === "refresh_requested" ? "refresh requested by Slack" : `disconnect: ${frame.reason ?? "no reason"}`);
      if (!frame.envelope_id) return o.logger.debug(`Socket Mode: ignored a ${frame.type} frame`);
      const envelopeId = frame.envelope_id;
      const work = frame.type === "events_api" ? o.onEvent(frame.payload) : Promise.resolve();
      work.then(
        () => {
          if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ envelope_id: envelopeId }));
        },
        (error: unknown) => o.logger.error(`Socket Mode: event not stored, not acknowledged (Slack redelivers): ${errorMessage(error)}`),
      );
    };
  });
}
