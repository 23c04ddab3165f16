/**
 * A real IRC server for the IRC channel's tests: ngIRCd (Debian package `ngircd`) on 127.0.0.1 with its own
 * configuration in a temporary directory, and a raw client standing in for a person.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket } from "bun";
import { freePort, listeningOn } from "./own-servers.ts";
import { waitFor } from "./wait.ts";

export const NGIRCD = Bun.which("ngircd") ?? (Bun.file("/usr/sbin/ngircd").size > 0 ? "/usr/sbin/ngircd" : null);

export interface Ngircd {
  port: number;
  /** Stop the server (its clients are disconnected). */
  stop(): Promise<void>;
  /** Start it again on the same port. */
  restart(): Promise<void>;
  /** Stop it and remove its directory. */
  close(): Promise<void>;
}

/** `password`: the server password every client must give with PASS (ngircd.conf [Global] Password). */
export async function startNgircd(options: { password?: string } = {}): Promise<Ngircd> {
  if (!NGIRCD) throw new Error("ngircd is not installed (apt-get install ngircd)");
  const dir = mkdtempSync(join(tmpdir(), "prx-channels-ngircd-"));
  const port = await freePort();
  const conf = join(dir, "ngircd.conf");
  writeFileSync(
    conf,
    `[Global]\nName = irc.prx.test\nInfo = prx test\nListen = 127.0.0.1\nPorts = ${port}\nMotdPhrase = "prx test"\n${options.password ? `Password = ${options.password}\n` : ""}` +
      `AdminInfo1 = prx\nAdminInfo2 = test\nAdminEMail = prx@localhost\n` +
      `[Limits]\nMaxConnectionsIP = 0\nMaxNickLength = 30\nPingTimeout = 120\nPongTimeout = 20\n` +
      `[Options]\nPAM = no\nIdent = no\nDNS = no\n`,
  );
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const spawn = async () => {
    proc = Bun.spawn([NGIRCD!, "-n", "-f", conf], { stdout: "ignore", stderr: "ignore" });
    await listeningOn(port, "ngircd");
  };
  await spawn();
  return {
    port,
    async stop() {
      proc?.kill("SIGTERM");
      await proc?.exited;
      proc = null;
    },
    async restart() {
      await spawn();
    },
    async close() {
      proc?.kill("SIGTERM");
      await proc?.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A person on the server: registers with `nick`, keeps what it is sent. */
export interface IrcPerson {
  lines: string[];
  say(target: string, text: string): void;
  join(channel: string): Promise<void>;
  /** PRIVMSGs from `from` to this person or to `target`, their text. */
  heard(from: string, target?: string): string[];
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  quit(): void;
}

/** `onLine`: called with each line as it arrives and a way to write to the server (a client that answers at once). */
export async function ircPerson(port: number, nick: string, password?: string, onLine?: (line: string, write: (raw: string) => void) => void): Promise<IrcPerson> {
  const lines: string[] = [];
  let buffer = "";
  let socket!: Socket<undefined>;
  await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(s) {
        socket = s;
        s.write(`${password ? `PASS ${password}\r\n` : ""}NICK ${nick}\r\nUSER ${nick} 0 * :${nick}\r\n`);
      },
      data(s, chunk) {
        buffer += new TextDecoder().decode(chunk);
        let at: number;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, at).replace(/\r$/, "");
          buffer = buffer.slice(at + 1);
          if (line.startsWith("PING ")) s.write(`PONG ${line.slice(5)}\r\n`);
          lines.push(line);
          onLine?.(line, (raw) => void s.write(raw));
        }
      },
    },
  });
  const person: IrcPerson = {
    lines,
    say: (target, text) => void socket.write(`PRIVMSG ${target} :${text}\r\n`),
    async join(channel) {
      socket.write(`JOIN ${channel}\r\n`);
      await person.waitFor(() => lines.some((l) => l.includes(` JOIN `) && l.startsWith(`:${nick}!`)), `${nick} joining ${channel}`);
    },
    heard: (from, target = nick) =>
      lines.filter((l) => l.startsWith(`:${from}!`) && l.includes(` PRIVMSG ${target} :`)).map((l) => l.slice(l.indexOf(` PRIVMSG ${target} :`) + ` PRIVMSG ${target} :`.length)),
    async waitFor(predicate, what, timeoutMs) {
      await waitFor(predicate, () => `${what}; lines:\n${lines.join("\n")}`, timeoutMs);
    },
    quit: () => void socket.end(),
  };
  await person.waitFor(() => lines.some((l) => / 001 /.test(l)), `${nick} registered`);
  return person;
}
