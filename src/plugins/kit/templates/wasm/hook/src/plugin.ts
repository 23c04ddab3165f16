// __PLUGIN_NAME__: a hook. onEvent gets each matching event's topic and its JSON payload, parsed; a throw is
// counted as the hook's error in `prx plugins info`.
import { defineHook, kv, log } from "@prx/kit";

export const hookExports = defineHook({
  onEvent(topic, payload) {
    const turns = kv.increment("turns");
    const session = (payload as { session_id?: unknown } | null)?.session_id;
    kv.set("last_session", typeof session === "string" ? session : "");
    log.debug(`${topic}: turn ${turns}`);
  },
});
