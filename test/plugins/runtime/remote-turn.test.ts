import { describe, expect, test } from "bun:test";
import { createLogger } from "../../../src/core/logger.ts";
import { remoteContext, runRemoteEvaluators } from "../../../src/plugins/adapters/remote-proxies.ts";
import type { RemoteAdapter } from "../../../src/plugins/adapters/types.ts";
import type { PluginDescriptor } from "../../../src/plugins/remote/protocol/messages.ts";

/** A remote plugin as the turn sees it: what it announced, and which of its surfaces a turn called. */
function remote(plugin: string, descriptor: Omit<PluginDescriptor, "name">) {
  const calls: string[] = [];
  const adapter = {
    plugin,
    handle: { descriptor: () => ({ name: plugin, ...descriptor }) },
    context: async () => (calls.push("context"), [`context of ${plugin}`]),
    evaluate: async () => (calls.push("evaluate"), { ran: [], failed: [] }),
    provider: null,
    route: async () => new Response(),
  } as unknown as RemoteAdapter;
  return { adapter, calls };
}

const ref = { rpc: true as const, id: "r1" };
const input = { text: "hi", sessionId: "s" };
const logger = createLogger("test.remote-turn");

describe("a turn calls only the remote plugins that take part in it", () => {
  test("context comes from plugins with a public provider; the others are not called", async () => {
    const withProvider = remote("a", { providers: [{ name: "TIME", get: ref }] });
    const privateOnly = remote("b", { providers: [{ name: "SECRET", private: true, get: ref }] });
    const none = remote("c", { actions: [] });
    const all = [withProvider, privateOnly, none];
    const context = await remoteContext(() => ({ remote: () => undefined, remotes: () => all.map((r) => r.adapter) }), input, logger);
    expect(context).toEqual(["context of a"]);
    expect(all.map((r) => r.calls)).toEqual([["context"], [], []]);
  });

  test("with no plugin giving context the turn gets nothing synchronously", () => {
    const none = remote("c", {});
    expect(remoteContext(() => ({ remote: () => undefined, remotes: () => [none.adapter] }), input, logger)).toEqual([]);
    expect(none.calls).toEqual([]);
  });

  test("evaluators run only in plugins that announced some", async () => {
    const evaluating = remote("a", { evaluators: [{ name: "E", handler: ref }] } as Omit<PluginDescriptor, "name">);
    const none = remote("b", { evaluators: [] });
    const current = () => ({ remote: () => undefined, remotes: () => [evaluating.adapter, none.adapter] });
    await runRemoteEvaluators(current, input, "answer", logger);
    expect([evaluating.calls, none.calls]).toEqual([["evaluate"], []]);
    expect(runRemoteEvaluators(() => ({ remote: () => undefined, remotes: () => [none.adapter] }), input, "answer", logger)).toBeUndefined();
  });
});
