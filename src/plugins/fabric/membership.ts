import type { Logger } from "../../core/logger.ts";
import type { EventBus } from "../events/bus.ts";
import type { LocalReload, ReplicaFabric, ReplicaFabricOptions, ReplicaReloads } from "./index.ts";

export interface FabricStats {
  replica: string;
  peers: number;
  forwarded: number;
  received: number;
  dropped: number;
}

/**
 * A plugin runtime's link to the other replicas (`[bus] backend = "redis"`): its own bus exchanges events with
 * theirs and a reload through it reloads them. Joined once; the Redis code loads only when a runtime joins.
 */
export class ReplicaMembership {
  private joining: Promise<ReplicaFabric> | null = null;
  private joined: ReplicaFabric | null = null;

  constructor(
    private readonly options: ReplicaFabricOptions,
    private readonly bus: EventBus,
    private readonly reload: LocalReload,
    private readonly logger: Logger,
  ) {}

  /** Join (once; a failed join can be tried again). */
  async join(): Promise<void> {
    this.joining ??= import("./index.ts")
      .then(({ openReplicaFabric }) => openReplicaFabric(this.options, this.bus, this.reload, this.logger))
      .then((joined) => (this.joined = joined));
    try {
      await this.joining;
    } catch (error) {
      this.joining = null;
      throw error;
    }
  }

  /** Reloads across replicas (null until joined). */
  get reloads(): ReplicaReloads | null {
    return this.joined?.reloads ?? null;
  }

  get stats(): FabricStats | null {
    const j = this.joined;
    if (!j) return null;
    return { replica: j.fabric.replica, peers: j.fabric.peers.size, forwarded: j.events.forwarded, received: j.events.received, dropped: j.fabric.dropped };
  }

  /** Close the link; a join still in progress is closed once it completes. */
  async leave(): Promise<void> {
    const joining = this.joining;
    this.joining = null;
    this.joined = null;
    // a join that failed was reported to whoever awaited join(): nothing is left to close
    const fabric = joining ? await joining.then((f) => f, () => null) : null;
    await fabric?.close();
  }
}
