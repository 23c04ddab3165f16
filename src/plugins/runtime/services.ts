import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { busOf } from "../adapters/hook.ts";
import { feedHooksFromBus, type HooksFeed } from "../hooks/feed.ts";
import { createPluginMiddlewareRunner } from "../middleware/runner.ts";
import { StorageProxies, wasmProviders } from "../adapters/proxies.ts";
import { remoteProviders } from "../adapters/remote-proxies.ts";
import { CronScheduler } from "../cron/scheduler.ts";
import { EventBus } from "../events/bus.ts";
import type { EventBusApi } from "../events/types.ts";
import type { Generation } from "../generation.ts";
import { HooksManager } from "../hooks/manager.ts";
import type { PluginServiceParts, PluginServicesOptions, ServicesHost } from "./types.ts";

/** On close, how long queued bus events may take to reach hooks before their pumps close. */
export const SERVICES_CLOSE_DRAIN_MS = 5_000;

async function drain(bus: EventBusApi | null, timeoutMs: number): Promise<void> {
  if (!bus) return;
  const deadline = performance.now() + timeoutMs;
  while (bus.stats().subscriptions.some((s) => !s.closed && s.queued > 0) && performance.now() < deadline)
    await Bun.sleep(5);
}

/** The services of a runtime, made by its constructor (which adds itself as `runtime`). */
export function createPluginServices(runtime: ServicesHost, options: PluginServicesOptions = {}): PluginServiceParts {
  const logger: Logger = runtime.host.logger;
  const bus = busOf(runtime.host.events);
  const current = () => (runtime.started ? runtime.current() : null);
  const cron = new CronScheduler({
    store: runtime.host.storage.cron,
    bus: runtime.host.events,
    logger: logger.child("cron"),
    ...(options.cronClock ? { clock: options.cronClock } : {}),
  });
  const hooks = new HooksManager({
    path: runtime.workspace.hooksPath,
    root: runtime.workspace.root,
    logger: logger.child("hooks"),
  });
  const loaded = hooks.reload();
  if (!loaded.ok) logger.warn("hooks.json not loaded", { error: loaded.error });
  const hooksFeed: HooksFeed | null =
    options.hooks !== false && bus instanceof EventBus ? feedHooksFromBus(bus, hooks, logger.child("hooks")) : null;
  let live: Generation | null = null;
  let cronStarted = false;

  const swap = (next: Generation, previous: Generation | null): void => {
    live = next;
    // a generation that changed no hook (or no cron job) has its predecessor's very list: nothing to do for them
    if (next.adapters.hook !== previous?.adapters.hook) {
      // A hook carried over into the next generation keeps its pump: only the ones left behind stop.
      const carried = new Set<unknown>(next.adapters.hook);
      for (const adapter of previous?.adapters.hook ?? []) {
        if (carried.has(adapter)) continue;
        adapter
          .deactivate()
          .catch((error) => logger.warn("hook pump did not stop cleanly", { error: errorMessage(error) }));
      }
      for (const adapter of next.adapters.hook) adapter.activate();
    }
    try {
      if (next.adapters.cron !== previous?.adapters.cron) cron.setJobs(next.adapters.cron.map((a) => a.job));
    } catch (error) {
      logger.error("cron jobs of the new generation rejected; the previous jobs stay scheduled", {
        error: errorMessage(error),
      });
    }
    if (options.cron !== false && !cronStarted) {
      cronStarted = true;
      cron.start();
    }
  };
  const off = runtime.onGeneration(swap);
  if (runtime.started) swap(runtime.current(), null);

  let closing: Promise<void> | null = null;
  return {
    bus,
    cron,
    hooks,
    middleware: createPluginMiddlewareRunner(runtime),
    providers: wasmProviders(current),
    storages: new StorageProxies(current),
    remoteProviders: remoteProviders(current),
    remotes: current,
    close: () =>
      (closing ??= (async () => {
        off();
        await cron.stop();
        await drain(bus, SERVICES_CLOSE_DRAIN_MS);
        const last = live;
        live = null;
        await Promise.all([...(last?.adapters.hook ?? []).map((a) => a.deactivate()), hooksFeed?.stop()]);
      })()),
  };
}
