/**
 * `bun flood-host.ts <transport> <kind> <bytes>`: a host process of its own running the hostile plugin's FLOOD, so a
 * test can read what reached this process's stderr. Prints {result, status} as JSON on stdout.
 */
import { setLogLevel } from "../../../src/core/logger.ts";
import { startHostile, type Transport } from "./helpers.ts";

setLogLevel("warn");
const [transport, kind, bytes] = process.argv.slice(2) as [Transport, string, string];
const hostile = await startHostile(transport);
const result = await hostile.act("FLOOD", { kind, bytes: Number(bytes), line: 2 });
// the worker runtime writes its summary of dropped lines when the interval that dropped them ends
await Bun.sleep(1_500);
const status = hostile.handle.status();
await hostile.stop();
process.stdout.write(JSON.stringify({ result, status }) + "\n");
