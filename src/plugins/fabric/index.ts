import type { Logger } from "../../core/logger.ts";
import type { EventBus } from "../events/bus.ts";
import { EventLink } from "./event-link.ts";
import { RedisFabric, type FabricOptions } from "./redis-fabric.ts";
import { ReplicaReloads, type LocalReload } from "./reload-fanout.ts";

export * from "./limits.ts";
export { PEERS_CHANNEL, RedisFabric, type FabricOptions } from "./redis-fabric.ts";
export { EventLink } from "./event-link.ts";
export { isAnnouncementLive, readRegistry, type RegistryReply } from "./registry.ts";
export { ReplicaReloads, type LocalReload, type ReplicaOutcome } from "./reload-fanout.ts";

/** `[bus] backend = "redis"` as the plugin runtime is given it. */
export interface ReplicaFabricOptions {
  url: string;
  prefix: string;
  /** Default BACKGROUND_TIMERS (tests move their own by hand). */
  clock?: FabricOptions["clock"];
}

/** What one runtime shares with the other replicas: its bus (events both ways) and plugin reloads. */
export interface ReplicaFabric {
  readonly fabric: RedisFabric;
  readonly events: EventLink;
  readonly reloads: ReplicaReloads;
  close(): Promise<void>;
}

/** Connect a runtime's bus and reloads to the other replicas. */
export async function openReplicaFabric(
  options: ReplicaFabricOptions,
  bus: EventBus,
  reload: LocalReload,
  logger: Logger,
): Promise<ReplicaFabric> {
  const fabric = new RedisFabric({ ...options, logger, patterns: () => bus.patterns() });
  await fabric.open();
  const events = new EventLink(fabric, bus, logger);
  const reloads = new ReplicaReloads(fabric, reload, logger);
  try {
    await events.open();
    await reloads.open();
  } catch (error) {
    await fabric.close();
    throw error;
  }
  return {
    fabric,
    events,
    reloads,
    async close() {
      events.close();
      await fabric.close();
    },
  };
}
