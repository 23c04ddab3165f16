// Guest-side types of the prx:host imports the TypeScript test plugins use (componentize-qjs JS mapping:
// option<T> is T | null, a result-typed import returns its ok value or throws its error string).
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
declare module "prx:host/config@0.1.0" {
  const config: { get(key: string): string | null; getAll(): [string, string][] };
  export default config;
}
