import { PrxError, errorMessage } from "../../core/errors.ts";
import { eventParams, eventTopic } from "./events.ts";
import { handleRoute } from "./routes.ts";
import type { RemoteSupervisor } from "./supervisor/index.ts";
import { actionMessage, actionTool } from "./tools.ts";
import type { RemotePluginHandle } from "./types.ts";

/** The host's face of one running remote plugin, built over its supervisor. */
export function createHandle(sup: RemoteSupervisor): RemotePluginHandle {
  const name = sup.options.name;
  const emptyState = () => ({ values: {}, data: {}, text: "" });
  return {
    name,
    descriptor: () => sup.descriptor(),
    tools: () => (sup.descriptor().actions ?? []).map((a) => actionTool(sup, a)),
    async contextProviders(input, signal) {
      const message = actionMessage(input.text, input.sessionId, sup.agent, input.userId);
      const out: string[] = [];
      sup.providerDepth++;
      try {
        for (const p of sup.descriptor().providers ?? []) {
          if (p.private) continue;
          try {
            const result = await sup.call("provider", p.get.id, { message, state: emptyState() }, { signal });
            const text = typeof result === "string" ? result : (result as { text?: unknown } | null)?.text;
            if (typeof text === "string" && text.trim()) out.push(text);
          } catch (error) {
            sup.log.warn(`provider ${p.name} failed; its context is left out of this turn`, {
              error: errorMessage(error),
            });
          }
        }
      } finally {
        sup.providerDepth--;
      }
      return out;
    },
    modelTypes: () => Object.keys(sup.descriptor().models ?? {}),
    async useModel(modelType, params, signal) {
      const ref = sup.descriptor().models?.[modelType];
      if (!ref) throw new Error(`remote plugin ${name} serves no model ${modelType}`);
      return sup.call("model", ref.id, { params }, { signal });
    },
    eventSubscriptions: () =>
      Object.keys(sup.descriptor().events ?? {}).map((event) => ({ name: event, topic: eventTopic(event) })),
    async deliverEvent(event, payload) {
      sup.noteEvent(`event ${event}`);
      for (const ref of sup.descriptor().events?.[event] ?? []) {
        try {
          await sup.call("event", ref.id, { payload: eventParams(payload) ?? null });
        } catch (error) {
          sup.log.warn(`event handler ${ref.id} failed`, { error: errorMessage(error) });
        }
      }
    },
    async runEvaluators(input) {
      const message = actionMessage(input.text, input.sessionId, sup.agent, input.userId);
      const state = { values: { response: input.response }, data: {}, text: input.response };
      const ran: string[] = [];
      const failed: string[] = [];
      for (const e of sup.descriptor().evaluators ?? []) {
        try {
          if (e.validate && !e.alwaysRun && (await sup.call("evaluator", e.validate.id, { message, state })) !== true)
            continue;
          await sup.call("evaluator", e.handler.id, { message, state });
          ran.push(e.name);
        } catch (error) {
          failed.push(e.name);
          sup.log.warn(`evaluator ${e.name} failed`, { error: errorMessage(error) });
        }
      }
      return { ran, failed };
    },
    handleRoute: (method, path, request) => handleRoute(sup, sup.options.dir, method.toUpperCase(), path, request),
    async callService(serviceType, method, args) {
      const service = sup.descriptor().services?.find((s) => s.serviceType === serviceType);
      const ref = service?.methods[method];
      if (!ref) {
        throw new PrxError("FORBIDDEN", `${serviceType}.${method} of remote plugin ${name} is not an rpcMethod`, {
          hint: `reachable methods: ${service?.rpcMethods.join(", ") || "none (unknown service)"}`,
        });
      }
      return sup.call("service", ref.id, { args });
    },
    status: () => sup.status(),
    ready: () => sup.ready(),
    shutdown: () => sup.shutdown(),
  };
}
