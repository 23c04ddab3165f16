import { errorMessage, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import type { Logger } from "../../core/logger.ts";
import { Backoff, sleep } from "../../core/supervise/index.ts";
import { PLATFORM_BACKOFF } from "../limits.ts";
import { DISCORD_INTENTS, FATAL_CLOSE_CODES, GatewayOp, GatewayPayloadSchema, HelloSchema, ReadySchema } from "./wire.ts";

export interface DiscordGatewayOptions {
  token: string;
  /** Get Gateway Bot: the URL to IDENTIFY on. */
  gatewayUrl(): Promise<string>;
  onDispatch(type: string, data: unknown): void;
  onState(ok: boolean, detail: string): void;
  logger: Logger;
  signal: AbortSignal;
}

type Outcome = "resume" | "identify" | "stopped" | { fatal: string };

/** A session survives reconnects: RESUME replays what was missed since `seq`. */
interface Session {
  id: string;
  resumeUrl: string;
  seq: number | null;
}

/**
 * The Discord Gateway (https://discord.com/developers/docs/events/gateway#connection-lifecycle): HELLO, heartbeats
 * every heartbeat_interval (the first after a random fraction of it), ACKs tracked (a missed ACK is a zombied
 * connection: reconnect and RESUME), IDENTIFY with intents including MESSAGE_CONTENT, READY's session id and
 * resume_gateway_url, RESUME with the session id and last sequence, RECONNECT (op 7), INVALID_SESSION (op 9: resume
 * when it says so, else identify anew after 1-5 s), fatal close codes reported.
 */
export async function runDiscordGateway(o: DiscordGatewayOptions): Promise<void> {
  let session: Session | null = null;
  const backoff = new Backoff(PLATFORM_BACKOFF);
  const state: SessionState = {
    session: () => session,
    setSession: (s) => void (session = s),
    seq: (n) => void (session && (session.seq = n)),
  };
  while (!o.signal.aborted) {
    let url: string;
    try {
      const current = state.session();
      url = current ? current.resumeUrl : await o.gatewayUrl();
    } catch (error) {
      const wait = (error as { retryAfterMs?: number }).retryAfterMs ?? backoff.next();
      o.onState(false, `Get Gateway Bot failed: ${errorMessage(error)}`);
      await sleep(wait, o.signal);
      continue;
    }
    const outcome = await connect(`${url.replace(/\/$/, "")}/?v=10&encoding=json`, o, state, () => backoff.reset());
    if (outcome === "stopped") return;
    if (typeof outcome === "object") {
      o.onState(false, outcome.fatal);
      throw new PrxError("CHANNEL_PLATFORM", `discord: ${outcome.fatal}`, { hint: "check the bot token and enable the MESSAGE CONTENT intent in the Discord developer portal" });
    }
    if (outcome === "identify") {
      session = null;
      await sleep(1000 + Math.random() * 4000, o.signal);
    } else await sleep(backoff.next(), o.signal);
  }
}

interface SessionState {
  session(): Session | null;
  setSession(s: Session | null): void;
  seq(n: number): void;
}

function connect(url: string, o: DiscordGatewayOptions, state: SessionState, onReady: () => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let heartbeat: ReturnType<typeof setTimeout> | null = null;
    let acked = true;
    let done = false;
    let pendingSession: Session | null = null;
    const finish = (outcome: Outcome, code = 4000) => {
      if (done) return;
      done = true;
      if (heartbeat) clearTimeout(heartbeat);
      o.signal.removeEventListener("abort", abort);
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code);
      resolve(outcome);
    };
    const abort = () => finish("stopped", 1000);
    o.signal.addEventListener("abort", abort, { once: true });
    const send = (payload: unknown) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(payload));
    const beat = () => send({ op: GatewayOp.HEARTBEAT, d: state.session()?.seq ?? pendingSession?.seq ?? null });
    const schedule = (interval: number, first: boolean) => {
      heartbeat = setTimeout(() => {
        if (!acked) {
          o.logger.warn("Discord: no heartbeat ACK since the last heartbeat; reconnecting to resume");
          return finish(state.session() ? "resume" : "identify");
        }
        acked = false;
        beat();
        schedule(interval, false);
      }, first ? interval * Math.random() : interval);
    };
    ws.onclose = (event) => {
      if (FATAL_CLOSE_CODES.has(event.code)) return finish({ fatal: `gateway closed the connection with ${event.code} ${event.reason}` });
      finish(state.session() ? "resume" : "identify");
    };
    ws.onerror = () => finish(state.session() ? "resume" : "identify");
    ws.onmessage = (event) => {
      let payload;
      try {
        payload = GatewayPayloadSchema.parse(parseJsonBounded(String(event.data), "gateway payload"));
      } catch (error) {
        return o.logger.warn(`Discord: ignored a malformed gateway payload: ${errorMessage(error)}`);
      }
      if (typeof payload.s === "number") {
        state.seq(payload.s);
        if (pendingSession) pendingSession.seq = payload.s;
      }
      switch (payload.op) {
        case GatewayOp.HELLO: {
          const hello = HelloSchema.safeParse(payload.d);
          if (!hello.success) return finish("identify");
          schedule(hello.data.heartbeat_interval, true);
          const session = state.session();
          if (session) send({ op: GatewayOp.RESUME, d: { token: o.token, session_id: session.id, seq: session.seq } });
          else send({ op: GatewayOp.IDENTIFY, d: { token: o.token, intents: DISCORD_INTENTS, properties: { os: process.platform, browser: "prx", device: "prx" } } });
          return;
        }
        case GatewayOp.HEARTBEAT:
          return void beat();
        case GatewayOp.HEARTBEAT_ACK:
          acked = true;
          return;
        case GatewayOp.RECONNECT:
          return finish("resume");
        case GatewayOp.INVALID_SESSION:
          if (payload.d !== true) state.setSession(null);
          return finish(payload.d === true ? "resume" : "identify");
        case GatewayOp.DISPATCH: {
          if (payload.t === "READY") {
            const ready = ReadySchema.safeParse(payload.d);
            if (ready.success) {
              pendingSession = { id: ready.data.session_id, resumeUrl: ready.data.resume_gateway_url, seq: payload.s ?? null };
              state.setSession(pendingSession);
              onReady();
              o.onState(true, `connected as ${ready.data.user.username ?? ready.data.user.id}`);
            }
          } else if (payload.t === "RESUMED") {
            onReady();
            o.onState(true, "connected (resumed)");
          }
          if (payload.t) o.onDispatch(payload.t, payload.d);
        }
      }
    };
  });
}
