// Guest-side types of the prx:host imports used by tool.ts (componentize-qjs JS mapping).
declare module "prx:host/kv@0.1.0" {
  const kv: {
    get(key: string): Uint8Array | null;
    set(key: string, value: Uint8Array): void;
    delete(key: string): boolean;
    listKeys(prefix: string): string[];
  };
  export default kv;
}
declare module "prx:host/log@0.1.0" {
  const log: { log(level: "trace" | "debug" | "info" | "warn" | "error", message: string): void };
  export default log;
}
