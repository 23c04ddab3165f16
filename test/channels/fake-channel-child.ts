/**
 * A stand-in channel process for supervisor tests, run as the supervisor's command (it receives
 * `channel run <name> --supervised -w <dir>` and ignores them). It speaks the supervisor's IPC messages
 * (src/channels/ipc.ts): says "ready", answers a forwarded request at once with its body echoed, except a body of
 * "hold": those are held until FAKE_RELEASE_AT of them are held, then all answered. On "stop" it exits, unless
 * FAKE_IGNORE_STOP is set (a process stuck in a turn). It exits when the supervisor goes away. With FAKE_LOG_LINE_BYTES
 * it writes to stderr a line of that many bytes, one of a byte more, then "log done"; with FAKE_ERROR it reports that
 * error over IPC. On "reload_config" it writes "config reloaded by <pid>" to stderr, on "reload_plugins" "plugins
 * reloaded: <name or all> generation <n> by <pid>". With FAKE_READY_ON_SIGUSR1 it writes "waiting for SIGUSR1" and
 * says "ready" only once it gets that signal (a process still starting).
 */
import { ChildMessageSchema, ParentMessageSchema, type ChildMessage } from "../../src/channels/ipc.ts";

const releaseAt = Number(process.env.FAKE_RELEASE_AT ?? "1");
const held: number[] = [];

function send(message: ChildMessage): void {
  process.send!(ChildMessageSchema.parse(message));
}

const answer = (id: number, body: string) => send({ type: "http_result", id, response: { status: 200, headers: {}, body } });

process.on("message", (raw: unknown) => {
  const message = ParentMessageSchema.parse(raw);
  if (message.type === "stop") {
    if (!process.env.FAKE_IGNORE_STOP) process.exit(0);
    return;
  }
  if (message.type === "reload_config") return void process.stderr.write(`config reloaded by ${process.pid}\n`);
  if (message.type === "reload_plugins")
    return void process.stderr.write(`plugins reloaded: ${message.name ?? "all"} generation ${message.generation} by ${process.pid}\n`);
  if (message.type !== "http") return;
  if (message.request.body !== "hold") return answer(message.id, message.request.body);
  held.push(message.id);
  if (held.length >= releaseAt) for (const id of held.splice(0)) answer(id, "released");
});
process.on("disconnect", () => process.exit(0));
if (process.env.FAKE_READY_ON_SIGUSR1) {
  process.on("SIGUSR1", () => send({ type: "ready", pid: process.pid }));
  process.stderr.write("waiting for SIGUSR1\n");
} else send({ type: "ready", pid: process.pid });
const lineBytes = Number(process.env.FAKE_LOG_LINE_BYTES ?? "0");
if (lineBytes > 0) process.stderr.write(`${"a".repeat(lineBytes)}\n${"b".repeat(lineBytes + 1)}\nlog done\n`);
if (process.env.FAKE_ERROR) send({ type: "error", message: process.env.FAKE_ERROR, at: 1_700_000_000_000 });
