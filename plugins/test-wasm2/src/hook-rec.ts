// Hook "record-topics": on-event appends the topic to kv "topics" (one per line, the last MAX_TOPICS kept)
// and keeps the last payload in kv "last-payload".
import kv from "prx:host/kv@0.1.0";
import { fromBytes, toBytes } from "./utf8.ts";

const MAX_TOPICS = 500;

function onEvent(event: string, payloadJson: string): void {
  const previous = kv.get("topics");
  const lines = previous
    ? fromBytes(previous)
        .split("\n")
        .filter((line) => line.length > 0)
    : [];
  lines.push(event);
  kv.set("topics", toBytes(lines.slice(-MAX_TOPICS).join("\n") + "\n"));
  kv.set("last-payload", toBytes(payloadJson));
}

// The world exports the interface prx:plugin/hook-exports@0.1.0: its functions are members of this object.
export const hookExports = { onEvent };
