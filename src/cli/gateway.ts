import { version } from "../../package.json" with { type: "json" };
import type { BootedGateway } from "../boot/index.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { hoistGlobalOptions } from "./global-options.ts";

const USAGE = `Usage: prx gateway [--host H] [--port P]      run the HTTP gateway (default 127.0.0.1:16830)
       prx gateway token create [--name N] [--json]   print a new bearer token (shown once)
       prx gateway token list [--json]                list tokens (never the tokens themselves)
       prx gateway token revoke <id>                  revoke a token
       prx gateway pair-code [--json]                 print a new pairing code for the gateway of this workspace
                                                      (the previous code stops working)
`;

const TOKEN_COMMANDS = ["create", "list", "revoke"] as const;

export async function gatewayCommand(given: string[], globals: { workspace?: string }): Promise<number> {
  const argv = hoistGlobalOptions(given, "prx gateway"); // `prx gateway -w DIR token create`
  if (argv[0] === "token") return tokenCommand(argv.slice(1), globals);
  if (argv[0] === "pair-code") return pairCodeCommand(argv.slice(1), globals);
  const { values, positionals } = parseCommand("prx gateway", argv, {
    host: { type: "string" },
    port: { type: "string" },
  });
  if (values.help) {
    console.log(USAGE.trimEnd());
    return 0;
  }
  if (positionals.length > 0) throw unknownName("subcommand", positionals[0]!, ["token", "pair-code"], "prx gateway");
  const port = values.port === undefined ? undefined : parsePort(values.port);

  // a signal while the gateway starts stops it once it is built (startGateway then owns the signals)
  let signalled = false;
  const hold = () => void (signalled = true);
  process.on("SIGINT", hold).on("SIGTERM", hold);
  let booted: BootedGateway;
  try {
    const { bootGateway } = await import("../boot/index.ts");
    booted = await bootGateway({ workspace: values.workspace ?? globals.workspace, hostname: values.host, port, version });
  } finally {
    process.off("SIGINT", hold).off("SIGTERM", hold);
  }
  if (signalled) void booted.server.stop();
  await booted.server.closed;
  await booted.close();
  return 0;
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535)
    throw usageError(`prx gateway: --port must be an integer 0-65535, got '${raw}'`);
  return port;
}

async function tokenCommand(argv: string[], globals: { workspace?: string }): Promise<number> {
  (await import("./stdout.ts")).exitQuietlyOnClosedStdout();
  const { values, positionals } = parseCommand("prx gateway token", argv, {
    name: { type: "string" },
    json: { type: "boolean" },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(TOKEN_COMMANDS as readonly string[]).includes(sub))
    throw unknownName("subcommand", sub, TOKEN_COMMANDS, "prx gateway token");

  const { storage } = await openGatewayStorage(values.workspace ?? globals.workspace);
  const store = storage.tokens;
  try {
    switch (sub) {
      case "create": {
        if (rest.length) throw usageError(`prx gateway token create: unexpected argument '${rest[0]}'`);
        const { token, record } = await store.create(values.name ?? `cli ${new Date().toISOString().slice(0, 19)}`);
        if (values.json) process.stdout.write(JSON.stringify({ ...record, token }) + "\n");
        else {
          process.stdout.write(token + "\n");
          process.stderr.write(`created token ${record.id} ("${record.name}"); it is shown only once\n`);
        }
        return 0;
      }
      case "list": {
        const tokens = await store.list();
        if (values.json) process.stdout.write(JSON.stringify(tokens) + "\n");
        else if (tokens.length === 0)
          process.stdout.write("no gateway tokens (pair with the gateway, or `prx gateway token create`)\n");
        else {
          for (const t of tokens) {
            const state = t.revoked ? "revoked" : "active";
            process.stdout.write(
              `${t.id}  ${state.padEnd(7)}  created ${t.created_at}  last used ${t.last_used_at ?? "never"}  ${t.name}\n`,
            );
          }
        }
        return 0;
      }
      default: {
        const id = rest[0];
        if (!id || rest.length > 1)
          throw usageError("prx gateway token revoke: expected exactly one token id (see `prx gateway token list`)");
        const revoked = await store.revoke(id);
        process.stdout.write(revoked ? `revoked ${id}\n` : `${id} was already revoked\n`);
        return 0;
      }
    }
  } finally {
    await storage.close();
  }
}

/**
 * Offline: only the workspace's config and database, no providers or plugins. The tokens and the pairing code every
 * replica checks: the workspace database, or the PostgreSQL of [storage].
 */
async function openGatewayStorage(dir: string | undefined) {
  const { openWorkspace } = await import("../core/workspace.ts");
  const { loadConfig } = await import("../config/loader.ts");
  const { openStorage } = await import("../storage/index.ts");
  const workspace = openWorkspace(dir);
  const { config } = loadConfig(workspace.configPath);
  return { config, storage: await openStorage(config.storage, workspace.dbPath, process.env) };
}

/** A fresh pairing code in the workspace storage, where the running gateway (every replica) checks guesses. */
async function pairCodeCommand(argv: string[], globals: { workspace?: string }): Promise<number> {
  (await import("./stdout.ts")).exitQuietlyOnClosedStdout();
  const { values, positionals } = parseCommand("prx gateway pair-code", argv, { json: { type: "boolean" } });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length) throw usageError(`prx gateway pair-code: unexpected argument '${positionals[0]}'`);
  const { config, storage } = await openGatewayStorage(values.workspace ?? globals.workspace);
  try {
    if (!config.gateway.require_pairing) {
      const { PrxError } = await import("../core/errors.ts");
      throw new PrxError("CONFLICT", "pairing is disabled (gateway.require_pairing = false): the gateway needs no code", {
        hint: "set gateway.require_pairing = true in config.toml to require tokens",
      });
    }
    const { issuePairingCode } = await import("../gateway/auth/pairing-code.ts");
    const ttlS = config.gateway.pairing_code_ttl_s;
    const { code, expiresAt } = await issuePairingCode(storage.gatewayPairing, ttlS * 1000, Date.now);
    if (values.json) process.stdout.write(JSON.stringify({ code, expires_at: new Date(expiresAt).toISOString() }) + "\n");
    else {
      process.stdout.write(code + "\n");
      process.stderr.write(
        `pairing code valid ${ttlS} s, once, for the gateway of this workspace (POST /pair with header X-Pairing-Code); ` +
          "any earlier code no longer works\n",
      );
    }
    return 0;
  } finally {
    await storage.close();
  }
}
