import { timeText } from "../core/time-text.ts";
import { PARENT_WATCH_INTERVAL_MS } from "../channels/limits.ts";
import { errorMessage, isPrxError } from "../core/errors.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { watchParent } from "../core/supervise/index.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

const USAGE = `Usage: prx channel run <name>                 run one configured channel in the foreground
       prx channel list [--json]                 configured channels (kind, enabled, policies)
       prx channel status [--json]               liveness of each channel process (from the workspace)
       prx channel doctor <name> [--json]        check a channel's configuration and credentials against its platform
       prx channel pair list [--json]            pending pairing requests and approved senders
       prx channel pair approve <code> [--owner] let the sender who got this code talk to the assistant
                                                 (--owner: they also answer tool approvals asked in that channel)
       prx channel pair revoke <sender> [--channel NAME]   remove an approved sender
`;

export const SUBCOMMANDS = ["run", "list", "status", "pair", "doctor"] as const;
const PAIR_COMMANDS = ["list", "approve", "revoke"] as const;

export async function channelCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand("prx channel", argv, {
    json: { type: "boolean" },
    channel: { type: "string" },
    supervised: { type: "boolean" },
    owner: { type: "boolean" },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx channel");
  if (sub === "run") {
    if (rest.length !== 1) throw usageError("prx channel run: expected exactly one channel name (see prx channel list)");
    return runChannel(rest[0]!, values.workspace, values.supervised === true);
  }
  // the others print through process.stdout; `channel run` prints its one line with console.log, and loads no node:fs
  (await import("./stdout.ts")).exitQuietlyOnClosedStdout();
  if (sub === "doctor") {
    if (rest.length !== 1) throw usageError("prx channel doctor: expected exactly one channel name (see prx channel list)");
    return (await import("./channel-doctor.ts")).channelDoctor(rest[0]!, values.workspace, values.json === true);
  }
  const { openWorkspace } = await import("../core/workspace.ts");
  const workspace = openWorkspace(values.workspace);
  if (sub === "list") return await listChannels(workspace.configPath, values.json === true);
  // channel state and pairings live in the [storage] backend (PostgreSQL: shared by every host)
  const { loadConfig } = await import("../config/loader.ts");
  const { openStorage } = await import("../storage/index.ts");
  const storage = await openStorage(loadConfig(workspace.configPath).config.storage, workspace.dbPath, process.env);
  try {
    if (sub === "status") {
      const { readChannelStatuses } = await import("../channels/store.ts");
      const rows = await readChannelStatuses(storage.channels);
      if (values.json) process.stdout.write(terminalJson(rows) + "\n");
      else if (rows.length === 0) process.stdout.write("no channel has run in this workspace yet\n");
      else
        for (const r of rows) {
          const when = (t: number | null) => (t === null ? "never" : timeText(t));
          process.stdout.write(
            `${visible(r.channel)}  ${visible(r.state)}${r.pid ? ` (pid ${r.pid})` : ""}  last inbound ${when(r.last_inbound)}  last outbound ${when(r.last_outbound)}${r.last_error ? `  last error${r.last_error_at === null ? "" : ` at ${when(r.last_error_at)}`}: ${visible(r.last_error)}` : ""}\n`,
          );
        }
      return 0;
    }
    return await pairCommand(rest, storage.pairings, values);
  } finally {
    await storage.close();
  }
}

/** Exit 0 when the platform took the credentials (or has no call to check them), 1 with the reason otherwise. */

async function listChannels(configPath: string, json: boolean): Promise<number> {
  const { loadConfig } = await import("../config/loader.ts");
  const { channelKind } = await import("../channels/registry.ts");
  const { config } = loadConfig(configPath);
  const rows = Object.entries(config.channels).map(([name, c]) => ({
    name,
    kind: channelKind(name, c),
    enabled: c.enabled,
    dm_policy: c.dm_policy,
    group_policy: c.group_policy,
  }));
  if (json) process.stdout.write(JSON.stringify(rows) + "\n");
  else if (rows.length === 0) process.stdout.write("no channels configured (add [channels.<name>] to config.toml)\n");
  else for (const r of rows) process.stdout.write(`${r.name}  ${r.kind}  ${r.enabled ? "enabled" : "disabled"}  dm=${r.dm_policy} group=${r.group_policy}\n`);
  return 0;
}

async function pairCommand(argv: string[], store: import("../storage/types.ts").PairingStore, values: { json?: boolean; channel?: string; owner?: boolean }): Promise<number> {
  const [action, ...args] = argv;
  if (action === undefined || !(PAIR_COMMANDS as readonly string[]).includes(action))
    throw action === undefined ? usageError("prx channel pair: expected list, approve <code> or revoke <sender>") : unknownName("subcommand", action, PAIR_COMMANDS, "prx channel pair");
  if (action === "list") {
    const rows = await store.list();
    if (values.json) process.stdout.write(terminalJson(rows) + "\n");
    else if (rows.length === 0) process.stdout.write("no pairing requests and no approved senders\n");
    else for (const r of rows) process.stdout.write(`${visible(r.channel)}  ${visible(r.sender_id)}  ${r.state}${r.owner ? " owner" : ""}${r.code ? `  code ${r.code}` : ""}  ${visible(r.display)}\n`);
    return 0;
  }
  if (args.length !== 1) throw usageError(`prx channel pair ${action}: expected exactly one ${action === "approve" ? "code" : "sender id"}`);
  if (action === "approve") {
    const record = await store.approve(args[0]!, values.owner === true);
    const role = values.owner ? " as an owner (answers tool approvals)" : "";
    process.stdout.write(`approved ${visible(record.display)} (${visible(record.sender_id)}) on channel ${visible(record.channel)}${role}\n`);
    return 0;
  }
  const removed = await store.revoke(args[0]!, values.channel);
  process.stdout.write(removed > 0 ? `revoked ${visible(args[0]!)} (${removed} pairing${removed === 1 ? "" : "s"})\n` : `${visible(args[0]!)} was not paired\n`);
  return removed > 0 ? 0 : 1;
}

/**
 * Foreground (or, with --supervised, a child of the gateway speaking IPC): runs until SIGINT/SIGTERM or "stop". It
 * says "running" once the platform is connected; the agent host opens after that (messages wait for it), and when it
 * fails to open the command fails with its error.
 */
async function runChannel(name: string, workspace: string | undefined, supervised: boolean): Promise<number> {
  const { connectChannelProcess } = await import("../channels/process.ts");
  const { channelHostExtensions, channelExtensionsNeeded } = await import("../boot/channel-host.ts");
  const jit = (await import("../boot/channel-jit.ts")).startChannelJit();
  const pageout = (await import("../boot/channel-pageout.ts")).binaryPageout();
  const idle = (await import("../boot/channel-idle-gc.ts")).idleCollector(() => {
    Bun.gc(true);
    // a failed hand-back leaves the pages resident, as they would be without it
    pageout.quiet().catch((error: unknown) => process.stderr.write(`prx channel ${name}: the binary's pages were not handed back: ${errorMessage(error)}\n`));
  });
  const send = supervised && process.send ? (message: unknown) => void process.send!(message) : undefined;
  const connecting = new AbortController();
  let running: import("../channels/process.ts").ChannelProcess | undefined;
  const stop = (channel: import("../channels/process.ts").ChannelProcess) =>
    void channel.stop().catch((error: unknown) => process.stderr.write(`prx channel ${name}: stop failed: ${errorMessage(error)}\n`));
  const onSignal = (signal: string) => {
    process.stderr.write(`prx channel ${name}: ${signal}; stopping\n`);
    if (running) stop(running);
    else connecting.abort();
  };
  const onSigint = () => onSignal("SIGINT");
  const onSigterm = () => onSignal("SIGTERM");
  process.on("SIGINT", onSigint).on("SIGTERM", onSigterm);
  let unwatch = () => {};
  try {
    try {
      running = await connectChannelProcess({
        name,
        workspace,
        send,
        signal: connecting.signal,
        extend: channelHostExtensions(),
        extendWhen: channelExtensionsNeeded(),
        onInFlight: (count) => {
          jit.inFlight(count);
          idle.inFlight(count);
        },
        // console.log writes at once (the host starts to open right after this line) and leaves process.stdout unbuilt
        onConnected: (health) => {
          if (!supervised) console.log(`prx channel ${name} running: ${health.detail} (Ctrl-C stops)`);
        },
        // the foreground says what happens to senders; a supervised child logs it for the gateway's log
        ...(supervised ? {} : { onEvent: (line: string) => console.error(`prx channel ${name}: ${line}`) }),
      });
    } catch (error) {
      if (connecting.signal.aborted && isPrxError(error, "ABORTED")) return 0;
      throw error;
    }
    // a signal handled as the connection completed found no process to stop yet
    if (connecting.signal.aborted) stop(running);
    // the start is a quiet period of its own: what only starting touched is handed back before the first message
    idle.inFlight(0);
    if (supervised) {
      process.on("message", running.receive);
      unwatch = watchParent(
        () => {
          process.stderr.write(`prx channel ${name}: the gateway is gone; exiting\n`);
          process.exit(0);
        },
        { intervalMs: PARENT_WATCH_INTERVAL_MS },
      );
    }
    await running.closed;
    if (!supervised) console.error(`prx channel ${name}: stopped`);
    return 0;
  } finally {
    process.off("SIGINT", onSigint).off("SIGTERM", onSigterm);
    if (supervised) {
      if (running) process.off("message", running.receive);
      unwatch();
      // the IPC channel keeps the event loop alive: close it so the process exits once stopped (or failed)
      process.disconnect?.();
    }
  }
}
