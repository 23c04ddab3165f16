import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { PrxError } from "../core/errors.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";

export const SUBCOMMANDS = ["install", "uninstall", "status"] as const;

const USAGE = `Usage: prx service install [--no-start] | uninstall | status
  the gateway of this workspace as a service of your user, started at login and restarted when it fails:
  a systemd user unit on Linux (~/.config/systemd/user/), a launchd agent on macOS (~/Library/LaunchAgents/).
  install writes it and (unless --no-start) enables and starts it; uninstall stops and removes it.
`;

/** One service per workspace: its name carries a short hash of the workspace's path. */
export function serviceName(workspace: Pick<Workspace, "root">): string {
  const hash = new Bun.CryptoHasher("sha256").update(workspace.root).digest("hex").slice(0, 8);
  return `prx-gateway-${hash}`;
}

/** How the service starts prx: this binary, or (from source) Bun with the entry script. */
export function launchCommand(): string[] {
  const entry = process.argv[1];
  const compiled = entry === undefined || entry.startsWith("/$bunfs/") || !entry.endsWith(".ts");
  return compiled ? [process.execPath] : [process.execPath, resolve(entry)];
}

/**
 * The environment a gateway service starts with. Bun's allocator reads its settings at launch only, so the gateway
 * cannot set them for itself. By default it hands the free blocks inside pages still in use back to the kernel each
 * time the event loop goes idle, which a gateway serving turns does between answers: a madvise at every idle and a
 * busier allocator thread, more of both the more replicas share the cores. With holes kept, whole free pages are
 * still handed back (src/gateway/README.md, "The allocator under load"). secrets.env, read after it, can override it.
 */
export const GATEWAY_SERVICE_ENV: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES: "0" };

/** An ExecStart argument: quoted when it holds spaces or quotes (paths in other settings are taken as they are). */
function systemdWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function systemdUnit(workspace: Workspace, command: string[]): string {
  if (/[\n\r%]/.test(workspace.root)) {
    throw new PrxError("USAGE", `the workspace path ${JSON.stringify(workspace.root)} holds a line break or %, which a systemd unit cannot carry`, {
      hint: "move the workspace to a path without them (prx -w DIR)",
    });
  }
  const exec = [...command, "gateway", "-w", workspace.root].map(systemdWord).join(" ");
  return `# written by prx service install; prx service uninstall removes it
[Unit]
Description=prx gateway of ${workspace.root}
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=${exec}
WorkingDirectory=${workspace.root}
${Object.entries(GATEWAY_SERVICE_ENV)
  .map(([name, value]) => `Environment=${name}=${value}`)
  .join("\n")}
EnvironmentFile=-${join(workspace.root, "secrets.env")}
Restart=on-failure
RestartSec=5
# the gateway drains running turns on SIGTERM (gateway.shutdown_grace_ms)
TimeoutStopSec=30

[Install]
WantedBy=default.target
`;
}

const xml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

export function launchdPlist(workspace: Workspace, command: string[], label: string): string {
  const args = [...command, "gateway", "-w", workspace.root].map((arg) => `    <string>${xml(arg)}</string>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${xml(label)}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>WorkingDirectory</key>
  <string>${xml(workspace.root)}</string>
  <key>EnvironmentVariables</key>
  <dict>
${Object.entries(GATEWAY_SERVICE_ENV)
  .map(([name, value]) => `    <key>${xml(name)}</key>\n    <string>${xml(value)}</string>`)
  .join("\n")}
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardOutPath</key>
  <string>${xml(join(workspace.logsDir, "service.out.log"))}</string>
  <key>StandardErrorPath</key>
  <string>${xml(join(workspace.logsDir, "service.err.log"))}</string>
</dict>
</plist>
`;
}

interface ServiceFile {
  kind: "systemd" | "launchd";
  path: string;
  text: string;
  /** Commands that (re)load, start, stop and show it. */
  start: string[][];
  stop: string[][];
  status: string[];
}

function serviceFile(workspace: Workspace, env: Record<string, string | undefined>): ServiceFile {
  const name = serviceName(workspace);
  const command = launchCommand();
  if (process.platform === "darwin") {
    const label = `dev.prx.${name}`;
    const path = join(env.HOME ?? homedir(), "Library", "LaunchAgents", `${label}.plist`);
    return {
      kind: "launchd",
      path,
      text: launchdPlist(workspace, command, label),
      start: [["launchctl", "load", "-w", path]],
      stop: [["launchctl", "unload", "-w", path]],
      status: ["launchctl", "list", label],
    };
  }
  if (process.platform !== "linux") {
    throw new PrxError("USAGE", `prx service supports Linux (systemd) and macOS (launchd), not ${process.platform}`, {
      hint: "run `prx gateway` under your platform's service manager",
    });
  }
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), ".config");
  const unit = `${name}.service`;
  return {
    kind: "systemd",
    path: join(configHome, "systemd", "user", unit),
    text: systemdUnit(workspace, command),
    start: [["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable", "--now", unit]],
    stop: [["systemctl", "--user", "disable", "--now", unit], ["systemctl", "--user", "daemon-reload"]],
    status: ["systemctl", "--user", "status", "--no-pager", unit],
  };
}

/** Run a service manager's command; its failure names the command, what it said, and what to try. */
function run(command: string[]): { ok: boolean; output: string } {
  if (!Bun.which(command[0]!)) return { ok: false, output: `${command[0]} is not installed` };
  const done = Bun.spawnSync(command, { stdout: "pipe", stderr: "pipe" });
  const output = `${done.stdout.toString()}${done.stderr.toString()}`.trim();
  return { ok: done.exitCode === 0, output };
}

export async function serviceCommand(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const { values, positionals } = parseCommand("prx service", argv, { "no-start": { type: "boolean" } });
  const sub = positionals[0];
  if (values.help || !sub) {
    process.stdout.write(USAGE);
    return sub || values.help ? 0 : 2;
  }
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw unknownName("subcommand", sub, SUBCOMMANDS, "prx service");
  if (positionals.length > 1) throw usageError(`prx service ${sub}: unexpected argument '${positionals[1]}'`);
  const workspace = openWorkspace(values.workspace);
  const file = serviceFile(workspace, env);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  if (sub === "install") {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.text, { mode: 0o644 });
    say(`wrote ${file.path} (${file.kind}: the gateway of ${workspace.root})`);
    if (values["no-start"] === true) {
      say(`start it with: ${file.start.map((c) => c.join(" ")).join(" && ")}`);
      return 0;
    }
    for (const command of file.start) {
      const result = run(command);
      if (!result.ok) {
        say(`${command.join(" ")} failed: ${result.output || "no output"}`);
        say(`the file is written; start it by hand once the service manager runs: ${file.start.map((c) => c.join(" ")).join(" && ")}`);
        return 1;
      }
    }
    say(`started; \`prx service status\` shows it, \`prx status\` shows the gateway`);
    return 0;
  }
  if (sub === "uninstall") {
    if (!existsSync(file.path)) {
      say(`no service of this workspace is installed (${basename(file.path)} is not in ${dirname(file.path)})`);
      return 1;
    }
    for (const command of file.stop) {
      const result = run(command);
      if (!result.ok) say(`${command.join(" ")}: ${result.output || "failed"} (the file is removed anyway)`);
    }
    rmSync(file.path, { force: true });
    say(`removed ${file.path}`);
    return 0;
  }
  if (!existsSync(file.path)) {
    say(`not installed: \`prx service install\` writes ${file.path}`);
    return 1;
  }
  say(`installed: ${file.path}`);
  const result = run(file.status);
  say(result.output || `${file.status.join(" ")}: no output`);
  return result.ok ? 0 : 3;
}
