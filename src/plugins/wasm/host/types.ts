/** What a guest's kv calls reach: the workspace SQLite database in the sandbox, or the host's store by RPC. */
export interface GuestKv {
  get(key: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array): void | Promise<void>;
  delete(key: string): boolean | Promise<boolean>;
  listKeys(prefix: string): string[] | Promise<string[]>;
  close(): void;
}
