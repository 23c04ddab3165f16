import { CONNECTIONS_MAX, CONNECTIONS_PER_ADDRESS_MAX } from "../limits.ts";
import type { CapReached } from "./types.ts";

/**
 * Requests in flight, per client address and in all. Over HTTP/1.1 a connection carries one request at a time, so
 * these are the connections the gateway is busy with (a kept-alive connection between requests is Bun's, closed
 * after GATEWAY_IDLE_TIMEOUT_S).
 */
export class ConnectionCaps {
  private readonly perAddress = new Map<string, number>();
  private total = 0;

  /**
   * Count one more request from `address` (null), or name the cap it would pass and count nothing. `spared`: not held
   * to the total cap.
   */
  acquire(address: string, spared = false): CapReached | null {
    const held = this.perAddress.get(address) ?? 0;
    if (held >= CONNECTIONS_PER_ADDRESS_MAX) return "address";
    if (!spared && this.total >= CONNECTIONS_MAX) return "total";
    this.perAddress.set(address, held + 1);
    if (!spared) this.total += 1;
    return null;
  }

  /** The end of a request `acquire` admitted, with the same `spared`. */
  release(address: string, spared = false): void {
    const held = this.perAddress.get(address) ?? 0;
    if (held <= 1) this.perAddress.delete(address);
    else this.perAddress.set(address, held - 1);
    if (!spared) this.total -= 1;
  }

  /** Requests in flight: from `address`, or from everyone (spared ones left out). */
  held(address?: string): number {
    return address === undefined ? this.total : (this.perAddress.get(address) ?? 0);
  }
}
