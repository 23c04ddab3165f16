// Cron "count": every run increments kv "runs" and returns "run #<n>".
import kv from "prx:host/kv@0.1.0";
import log from "prx:host/log@0.1.0";
import { fromBytes, toBytes } from "./utf8.ts";

function run(): string {
  const previous = kv.get("runs");
  const n = (previous ? Number(fromBytes(previous)) : 0) + 1;
  kv.set("runs", toBytes(String(n)));
  log.log("info", `cron-count run ${n}`);
  return `run #${n}`;
}

// The world exports the interface prx:plugin/cron-exports@0.1.0: its functions are members of this object.
export const cronExports = { run };
