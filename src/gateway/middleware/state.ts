import { Elysia } from "elysia";
import { OPEN_CREDENTIAL } from "../auth/service.ts";
import { pathOf } from "../front/index.ts";
import type { RequestState } from "./types.ts";

/** The context's placeholder until `requestState` fills it in (every request passes onRequest first). */
export const NOT_STARTED: Readonly<RequestState> = Object.freeze({
  id: "",
  start: 0,
  path: "",
  client: "",
  credential: OPEN_CREDENTIAL,
  done: true,
});

/** An Elysia instance whose contexts carry the typed request state `prx`: what every middleware factory builds on. */
export function withRequestState(name: string) {
  return new Elysia({ name }).decorate("prx", NOT_STARTED as RequestState);
}

/** A fresh state for `request`: its start time, path and client address; the other middleware fill in the rest. */
export function beginRequest(request: Request, client: string): RequestState {
  return { id: "", start: performance.now(), path: pathOf(request.url), client, credential: OPEN_CREDENTIAL, done: false };
}

export interface RequestStateOptions {
  /** The client's address (rate limits, pairing lockout, access log). */
  clientAddress(request: Request): string;
}

/** The first middleware: starts each request's state before routing. */
export function requestState({ clientAddress }: RequestStateOptions) {
  return withRequestState("prx-request-state").onRequest(function startRequest(context) {
    context.prx = beginRequest(context.request, clientAddress(context.request));
  });
}
