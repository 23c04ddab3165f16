import type { AgentHost } from "../agent/index.ts";
import { ConfigReloader } from "../agent/config-reload.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { ParentMessageParser } from "./fast-accept.ts";
import type { ChildMessage, ParentMessage } from "./ipc.ts";
import type { Channel } from "./types.ts";

export interface ParentMessagesContext {
  name: string;
  channel: Channel;
  logger: Logger;
  send?: (message: ChildMessage) => void;
  /** The agent host once open (it opens after the platform is connected); rejects if it did not open. */
  host: () => Promise<AgentHost>;
  stop: () => Promise<void>;
}

/**
 * What a supervised channel process does with the gateway's messages (ipc.ts): stop, reload the plugins or
 * config.toml with the gateway (once the host is open), answer a forwarded HTTP request (the adapter stores the
 * message; it waits for the host if it is still opening).
 */
export function parentMessages(context: ParentMessagesContext): (raw: unknown) => void {
  const { logger, send } = context;
  const reload = async (message: Extract<ParentMessage, { type: "reload_plugins" }>) => {
    let host: AgentHost;
    try {
      host = await context.host();
    } catch (error) {
      return send?.({ type: "reloaded", generation: null, error: `the host did not open: ${errorMessage(error)}` });
    }
    // a runtime at rest (no plugin when the process started) starts now, with what the gateway loaded
    if (host.extensions.state === "idle") await host.loadExtensions().catch((error: unknown) => logger.error(`plugins did not load: ${errorMessage(error)}`));
    const runtime = host.plugins?.runtime;
    if (!runtime) return send?.({ type: "reloaded", generation: null, error: "no plugin runtime in this process" });
    try {
      const generation = await runtime.reload(message.name ?? undefined, { force: true, all: message.name === null });
      logger.info(`plugins reloaded with the gateway: generation ${generation}`);
      send?.({ type: "reloaded", generation, error: null });
    } catch (error) {
      logger.error(`plugin reload forwarded by the gateway failed: ${errorMessage(error)}`);
      send?.({ type: "reloaded", generation: runtime.current().number, error: errorMessage(error) });
    }
  };
  let reloader: ConfigReloader | undefined;
  const reloadConfig = async () => {
    let host: AgentHost;
    try {
      host = await context.host();
    } catch (error) {
      // the host opens from config.toml as it is then: nothing to apply to
      return logger.warn(`config reload skipped: the host did not open: ${errorMessage(error)}`);
    }
    reloader ??= new ConfigReloader({ host, path: host.workspace.configPath, logger });
    await reloader.reload();
  };
  const handle = async (message: ParentMessage) => {
    switch (message.type) {
      case "stop":
        return void context.stop();
      case "reload_plugins":
        return reload(message);
      case "reload_config":
        return reloadConfig();
      case "http": {
        const { channel } = context;
        const response = channel.handleHttp
          ? await channel.handleHttp(message.request).catch((error: unknown) => {
              logger.error(`forwarded request failed: ${errorMessage(error)}`);
              return { status: 500, headers: {}, body: JSON.stringify({ error: errorMessage(error) }) };
            })
          : { status: 404, headers: {}, body: JSON.stringify({ error: `channel ${context.name} does not receive over HTTP` }) };
        send?.({ type: "http_result", id: message.id, response });
      }
    }
  };
  return (raw: unknown) => {
    const parsed = ParentMessageParser.safeParse(raw);
    if (!parsed.success) return logger.warn("ignored a malformed message from the gateway", { issue: parsed.error.issues[0]?.message });
    void handle(parsed.data);
  };
}
