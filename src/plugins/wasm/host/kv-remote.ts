import { MAX_KV_KEY_BYTES } from "../limits.ts";
import type { RpcMethod } from "../protocol.ts";
import { HostError } from "./errors.ts";
import type { GuestKv } from "./types.ts";

/**
 * A guest's kv served by the main thread's plugin KV store (`[storage] backend = "postgres"`: one KV for the plugin
 * on every replica). Each call is an RPC the guest waits for (its import suspends); the store enforces the quota.
 */
export class RemoteKv implements GuestKv {
  constructor(private readonly rpc: (method: RpcMethod, args: unknown[]) => Promise<unknown>) {}

  async get(key: string): Promise<Uint8Array | undefined> {
    const value = await this.call("kv.get", [key]);
    return value === null || value === undefined ? undefined : new Uint8Array(value as Uint8Array);
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    if (key.length === 0) throw new HostError("kv key must not be empty");
    if (Buffer.byteLength(key) > MAX_KV_KEY_BYTES) throw new HostError(`kv key longer than ${MAX_KV_KEY_BYTES} bytes`);
    await this.call("kv.set", [key, value]);
  }

  async delete(key: string): Promise<boolean> {
    return (await this.call("kv.delete", [key])) === true;
  }

  async listKeys(prefix: string): Promise<string[]> {
    return (await this.call("kv.list-keys", [prefix])) as string[];
  }

  close(): void {}

  private async call(method: RpcMethod, args: unknown[]): Promise<unknown> {
    try {
      return await this.rpc(method, args);
    } catch (error) {
      throw new HostError((error as Error).message);
    }
  }
}
