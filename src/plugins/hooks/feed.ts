import { watchConfigFile, type ConfigWatch } from "../../config/watch.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { EventBus } from "../events/bus.ts";
import { startPump, type Pump } from "../events/pump.ts";
import type { HooksManager } from "./manager.ts";

/**
 * While hooks.json defines no action and its directory cannot be watched (inotify's limit reached, the watch
 * failed), how often its stat is checked for a new or edited file. Otherwise the directory's watch reports the change
 * and nothing wakes the process meanwhile. With actions, every dispatched event checks it anyway; edits through the
 * API and CLI apply at once either way.
 */
export const HOOKS_RECHECK_MS = 1_000;

export interface HooksFeed {
  /** Unsubscribe (after the delivery in flight; drain the bus first to deliver what is queued), stop checking. */
  stop(): Promise<void>;
}

/**
 * Feed bus events to hooks.json, subscribed only while it defines actions: with none, events have no hook
 * subscriber at all, so publishers can skip building them (EventPublisher.wants). The file is then checked when its
 * directory's watch reports a change (every HOOKS_RECHECK_MS where it cannot be watched); a change that brings
 * actions subscribes at once.
 */
export function feedHooksFromBus(bus: EventBus, hooks: HooksManager, logger: Logger): HooksFeed {
  let pump: Pump | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let watch: ConfigWatch | null = null;
  let stopped = false;
  const quiet = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
    watch?.close();
    watch = null;
  };

  const sync = (): void => {
    if (stopped) return;
    const wanted = hooks.status().actions > 0;
    if (wanted && !pump) {
      pump = connectAfterIo(bus, hooks, logger);
      quiet();
    } else if (!wanted && pump) {
      const previous = pump;
      pump = null;
      void previous.stop();
    }
    if (!wanted && !timer && !watch) {
      watch = watchConfigFile(hooks.status().path, recheck, undefined, () => {
        // the directory's watch failed: check by stat from now on
        watch = null;
        if (!stopped && !pump) poll();
      });
      if (!watch) poll();
    }
  };
  // A workspace that became unreadable must not take the host down from a timer: say so once per new problem.
  let lastProblem = "";
  const recheck = (): void => {
    try {
      hooks.refresh();
      lastProblem = "";
    } catch (error) {
      const message = errorMessage(error);
      if (message !== lastProblem) logger.warn("cannot check hooks.json", { error: message });
      lastProblem = message;
    }
  };
  const poll = (): void => {
    timer = setInterval(recheck, HOOKS_RECHECK_MS);
    timer.unref?.();
  };
  const off = hooks.onChange(sync);
  sync();

  return {
    async stop() {
      stopped = true;
      off();
      quiet();
      const last = pump;
      pump = null;
      await last?.stop();
    },
  };
}

/**
 * The pump starts one event-loop turn after the first event of a burst: it would otherwise run in the microtasks
 * of the publishing turn, so a turn's lifecycle events would check hooks.json (a stat per event) before its
 * provider call starts and before its reply is written. Events already queued then are delivered back to back, in
 * order, within the same bounds.
 */
function connectAfterIo(bus: EventBus, hooks: HooksManager, logger: Logger): Pump {
  const subscription = bus.subscribe("*", { name: "hooks.json" });
  let draining = false;
  let delivered = 0;
  let watching = false;
  // Draining ends once a whole event-loop turn passes without a delivery.
  const watch = (seen: number): void => {
    setImmediate(() => {
      if (delivered !== seen) return watch(delivered);
      draining = false;
      watching = false;
    });
  };
  return startPump(
    subscription,
    async (topic, payloadJson) => {
      if (!draining) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        draining = true;
      }
      try {
        const { results } = await hooks.dispatchJson(topic, payloadJson);
        const failed = results.filter((r) => !r.ok);
        if (failed.length > 0)
          throw new Error(`${failed.length} of ${results.length} hooks failed for ${topic}: ${failed[0]!.error}`);
      } finally {
        delivered++;
        if (!watching) {
          watching = true;
          watch(delivered);
        }
      }
    },
    { name: "hooks.json", logger },
  );
}
