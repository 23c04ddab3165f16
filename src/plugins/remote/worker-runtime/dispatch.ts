import { WorkerRpcParser, type WireError, type WorkerRpcMessage } from "../protocol/index.ts";
import { WireErrorCodes, toWireError } from "../wire-error.ts";
import type { WorkerChannel } from "./channel.ts";
import type { HandlerRegistry } from "./descriptor.ts";
import { createRouteResponse } from "./route-response.ts";
import { routeRequest, type WireRouteRequest } from "./route-request.ts";
import type { Services } from "./services.ts";
import type { Content, RuntimeProxyApi } from "./types.ts";

type Args = Record<string, unknown>;

/** Routes `worker-rpc` to live handlers, replies `worker-rpc-result`, and honours `cancel`. */
export class Dispatcher {
  /** Calls being handled; actions get an AbortController (their handler sees options.abortSignal). */
  private readonly inFlight = new Map<number, AbortController | null>();

  constructor(
    private readonly registry: HandlerRegistry,
    private readonly services: Services,
    private readonly runtime: RuntimeProxyApi,
    private readonly channel: WorkerChannel,
    /** Called after each answered call (the launcher's memory check). */
    private readonly afterCall: () => void = () => {},
    /** Called before each call runs (the launcher's memory reports speed up). */
    private readonly beforeCall: () => void = () => {},
  ) {}

  get busy(): number {
    return this.inFlight.size;
  }

  cancel(requestId: number, reason?: string): void {
    if (!this.inFlight.has(requestId)) return;
    const controller = this.inFlight.get(requestId);
    this.inFlight.delete(requestId);
    controller?.abort(reason ?? "cancelled by host");
    this.reply(requestId, false, undefined, {
      name: "CancelledError",
      message: `call ${requestId} cancelled: ${reason ?? "cancelled by host"}`,
      code: WireErrorCodes.cancelled,
    });
  }

  async dispatch(raw: unknown): Promise<void> {
    const parsed = WorkerRpcParser.safeParse(raw);
    if (!parsed.success) {
      const requestId = (raw as { requestId?: unknown }).requestId;
      if (typeof requestId === "number") {
        this.reply(requestId, false, undefined, {
          name: "ProtocolError",
          message: `invalid worker-rpc: ${parsed.error.issues[0]?.message ?? "bad shape"}`,
          code: WireErrorCodes.badArgs,
        });
      }
      return;
    }
    const msg = parsed.data;
    const entry = this.registry.get(msg.target);
    if (!entry) {
      this.reply(msg.requestId, false, undefined, {
        name: "UnknownTargetError",
        message: `no handler registered for ${msg.surface} target "${msg.target}"`,
        code: WireErrorCodes.unknownTarget,
      });
      return;
    }
    if (entry.surface !== msg.surface) {
      this.reply(msg.requestId, false, undefined, {
        name: "SurfaceMismatchError",
        message: `target "${msg.target}" is a ${entry.surface}, not a ${msg.surface}`,
        code: WireErrorCodes.surfaceMismatch,
      });
      return;
    }
    const controller = entry.surface === "action" && entry.role === "handler" ? new AbortController() : null;
    this.inFlight.set(msg.requestId, controller);
    this.beforeCall();
    try {
      const result = await this.invoke(
        entry.surface,
        entry.role,
        entry.fn,
        msg,
        controller?.signal,
        entry.service?.serviceType,
      );
      if (this.inFlight.delete(msg.requestId)) this.reply(msg.requestId, true, result ?? null);
    } catch (error) {
      if (this.inFlight.delete(msg.requestId)) this.reply(msg.requestId, false, undefined, toWireError(error));
    }
    this.afterCall();
    this.channel.afterAnswer?.(() => this.inFlight.size === 0);
  }

  private async invoke(
    surface: WorkerRpcMessage["surface"],
    role: string,
    fn: (...args: never[]) => unknown,
    msg: WorkerRpcMessage,
    signal: AbortSignal | undefined,
    serviceType?: string,
  ): Promise<unknown> {
    const args = (msg.args && typeof msg.args === "object" ? msg.args : {}) as Args;
    const call = fn as (...a: unknown[]) => unknown;
    const rt = this.runtime;
    switch (surface) {
      case "action":
      case "evaluator": {
        if (role === "validate") return Boolean(await call(rt, args.message, args.state ?? undefined));
        if (surface === "evaluator") return await call(rt, args.message, args.state ?? undefined);
        const options = { ...((args.options as Args | undefined) ?? {}) };
        const callbackId = typeof args.callbackId === "string" ? args.callbackId : null;
        Object.defineProperty(options, "abortSignal", { value: signal, enumerable: false });
        // for runtime.actionCallback(callbackId, ...); not enumerable so it never mixes with the model's arguments
        Object.defineProperty(options, "callbackId", { value: callbackId, enumerable: false });
        const callback = this.actionCallback(callbackId);
        return await call(rt, args.message, args.state ?? undefined, options, callback, args.responses ?? undefined);
      }
      case "provider":
        return await call(rt, args.message, args.state ?? { values: {}, data: {}, text: "" });
      case "model":
        return await call(rt, (args.params as Args | undefined) ?? {});
      case "event": {
        const payload = args.payload;
        const base =
          payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Args) : { payload };
        await call({ ...base, runtime: rt });
        return null;
      }
      case "service":
        return await this.services.call(serviceType!, role, Array.isArray(args.args) ? args.args : [], rt);
      case "route": {
        const res = createRouteResponse();
        const returned = await call(routeRequest(args.req as WireRouteRequest), res.api, rt);
        return await res.result(returned);
      }
    }
  }

  private actionCallback(callbackId: string | null): (response: Content) => Promise<Content[]> {
    return async (response) => {
      if (callbackId) this.channel.send({ type: "worker-action-callback", callbackId, payload: response ?? null });
      return [];
    };
  }

  private reply(requestId: number, ok: boolean, payload?: unknown, error?: WireError): void {
    const message = ok
      ? { type: "worker-rpc-result", requestId, ok, payload }
      : { type: "worker-rpc-result", requestId, ok, error };
    try {
      this.channel.send(message);
    } catch (sendError) {
      // the result itself was refused (too large or not JSON): tell the host why instead of leaving it waiting
      this.channel.send({ type: "worker-rpc-result", requestId, ok: false, error: toWireError(sendError) });
    }
  }
}
