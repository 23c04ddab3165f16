import type { Socket } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ids.ts";
import { sleep } from "../../core/supervise/index.ts";
import { PlatformChannel } from "../base.ts";
import { PlatformError } from "../platform-error.ts";
import { IRC_MAX_LINE_BYTES, IRC_MAX_MESSAGE_CHARS, IRC_MAX_TEXT_BYTES, IRC_SEND_BURST, IRC_SEND_INTERVAL_MS } from "../limits.ts";
import { keepConnected } from "../reconnect.ts";
import type { ChannelSetup, InboundMessage, OnMessage, OutboundReply } from "../types.ts";
import { SendBucket } from "./flood.ts";
import { ircLines, ircLower, nickOf, parseIrcLine, type IrcLine } from "./wire.ts";

/** A PRIVMSG -> the inbound shape: to our nick it is a DM (the chat is the sender), else a channel message. */
export function normalizeIrc(channel: string, line: IrcLine, me: string, seq: number, now: number): InboundMessage | undefined {
  const [target, text] = line.params;
  if (line.command !== "PRIVMSG" || !target || text === undefined || !line.prefix.includes("!")) return undefined;
  const sender = nickOf(line.prefix);
  // CTCP (ACTION aside) is not conversation
  if (text.startsWith("\x01") && !text.startsWith("\x01ACTION ")) return undefined;
  const body = text.startsWith("\x01ACTION ") ? `* ${sender} ${text.slice(8).replace(/\x01$/, "")}` : text;
  const dm = ircLower(target) === ircLower(me);
  const addressed = new RegExp(`^${me.replace(/[-[\]\\^{}|`]/g, "\\$&")}[:,]\\s*`, "i");
  const mentioned = addressed.test(body) || ircLower(body).includes(ircLower(me));
  return {
    // IRC has no message ids: the arrival (time and order in this process) names it
    id: `${now}.${seq}.${sha256Hex(`${line.prefix}\n${target}\n${text}`).slice(0, 12)}`,
    channel,
    chatId: dm ? sender : target,
    chatKind: dm ? "dm" : "group",
    threadId: null,
    senderId: sender,
    senderDisplay: sender,
    senderIsBot: false,
    text: dm ? body : body.replace(addressed, ""),
    replyTo: null,
    mentioned,
    timestamp: now,
  };
}

/**
 * IRC (RFC 2812) over TCP or TLS: registers with NICK/USER (PASS from secret_env), answers PING, joins `join` after
 * the welcome (001), takes PRIVMSGs to it and to its channels, and sends replies as PRIVMSG lines of at most
 * IRC_MAX_TEXT_BYTES, paced by a token bucket (IRC_SEND_BURST lines at once, then one per IRC_SEND_INTERVAL_MS). A dropped connection is opened again with backoff; messages said
 * meanwhile are not seen (IRC keeps no history).
 */
export class IrcChannel extends PlatformChannel {
  readonly kind = "irc" as const;
  readonly capabilities = { edit: false, threads: false, maxMessageLength: IRC_MAX_MESSAGE_CHARS, typing: false };
  private readonly host: string;
  private readonly port: number;
  private nick: string;
  private socket: Socket<undefined> | null = null;
  private seq = 0;
  private sendChain: Promise<void> = Promise.resolve();
  private readonly bucket: SendBucket;

  /** `now` is the flood control's clock (tests drive it by hand). */
  constructor(setup: ChannelSetup, now: () => number = Date.now) {
    super(setup);
    this.bucket = new SendBucket(IRC_SEND_BURST, IRC_SEND_INTERVAL_MS, now);
    const { server, nick } = setup.config;
    if (!server || !nick) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: IRC needs server = "host:port" and nick`, {
        hint: `set server = "irc.libera.chat:6697", nick = "prxbot" and join = ["#channel"] in [channels.${this.name}]`,
      });
    }
    const colon = server.lastIndexOf(":");
    this.host = server.slice(0, colon);
    this.port = Number(server.slice(colon + 1));
    this.nick = nick;
  }

  async start(onMessage: OnMessage): Promise<void> {
    let welcomed!: () => void;
    const first = new Promise<void>((resolve) => (welcomed = resolve));
    this.loop = this.run(onMessage, welcomed);
    await this.firstConnection(first);
  }

  private run(onMessage: OnMessage, welcomed: () => void): Promise<void> {
    return keepConnected({
      what: "IRC connection",
      connection: (connected) =>
        this.connection(onMessage, () => {
          connected();
          welcomed();
        }),
      onEnded: (why) => (this.state = { ok: false, detail: `reconnecting: ${why}` }),
      logger: this.setup.logger,
      signal: this.stopper.signal,
    });
  }

  /** One connection; resolves with why it ended. */
  private connection(onMessage: OnMessage, onWelcome: () => void): Promise<string> {
    return new Promise((resolve) => {
      let buffer = "";
      let ended = false;
      let chain = Promise.resolve();
      const decoder = new TextDecoder();
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        this.stopper.signal.removeEventListener("abort", abort);
        this.socket = null;
        resolve(why);
      };
      const abort = () => {
        this.socket?.write("QUIT :stopping\r\n");
        this.socket?.end();
        end("stopping");
      };
      this.stopper.signal.addEventListener("abort", abort, { once: true });
      const handle = (line: IrcLine, socket: Socket<undefined>) => {
        switch (line.command) {
          case "PING":
            socket.write(`PONG :${line.params.at(-1) ?? ""}\r\n`);
            return;
          case "001":
            this.nick = line.params[0] ?? this.nick;
            for (const channel of this.setup.config.join ?? []) socket.write(`JOIN ${channel}\r\n`);
            this.state = { ok: true, detail: `${this.nick} on ${this.host}` };
            onWelcome();
            return;
          case "433": // nickname in use: try with an underscore
            this.nick = `${this.nick}_`.slice(0, 30);
            socket.write(`NICK ${this.nick}\r\n`);
            return;
          case "ERROR":
            return end(`server said: ${line.params.at(-1) ?? "error"}`);
          case "PRIVMSG": {
            const message = normalizeIrc(this.name, line, this.nick, ++this.seq, Date.now());
            if (message) chain = chain.then(() => onMessage(message)).catch((error: unknown) => this.setup.logger.error(`IRC: message not stored: ${errorMessage(error)}`));
            return;
          }
        }
      };
      Bun.connect({
        hostname: this.host,
        port: this.port,
        tls: this.setup.config.tls ?? true,
        socket: {
          open: (socket) => {
            this.socket = socket;
            const password = this.secret("secret_env");
            if (password) socket.write(`PASS ${password}\r\n`);
            socket.write(`NICK ${this.nick}\r\nUSER ${this.nick} 0 * :prx\r\n`);
          },
          data: (socket, chunk) => {
            buffer += decoder.decode(chunk, { stream: true });
            let newline: number;
            while ((newline = buffer.indexOf("\n")) >= 0) {
              const raw = buffer.slice(0, newline).replace(/\r$/, "");
              buffer = buffer.slice(newline + 1);
              const line = parseIrcLine(raw);
              if (line) handle(line, socket);
            }
            if (Buffer.byteLength(buffer) > IRC_MAX_LINE_BYTES) {
              socket.end();
              end(`a line over ${IRC_MAX_LINE_BYTES} bytes`);
            }
          },
          close: () => end("connection closed"),
          error: (_socket, error) => end(errorMessage(error)),
          connectError: (_socket, error) => end(`cannot connect: ${errorMessage(error)}`),
        },
      }).catch((error: unknown) => end(`cannot connect: ${errorMessage(error)}`));
    });
  }

  async send(reply: OutboundReply): Promise<string> {
    if (!this.loop) {
      // an adapter built only to send (another process's tool) has no connection, and opening one would take the nick
      throw new PrxError("CHANNEL_PLATFORM", `irc: channel ${this.name} sends only from its running process`, {
        hint: `run the channel (prx channel run ${this.name}, or enabled = true under the gateway) and let it answer there`,
      });
    }
    const lines = ircLines(reply.text, IRC_MAX_TEXT_BYTES).map((line) => `PRIVMSG ${reply.chatId} :${line}\r\n`);
    const sent = (this.sendChain = this.sendChain.then(async () => {
      for (let i = 0; i < lines.length; ) {
        const wait = this.bucket.take();
        if (wait > 0) await sleep(wait, this.stopper.signal);
        // the lines the bucket lets go with this one leave in the same write
        let burst = lines[i++]!;
        while (i < lines.length && this.bucket.takeNow()) burst += lines[i++]!;
        await this.retrying("PRIVMSG", async () => {
          if (!this.socket) throw new PlatformError("irc", "not connected (reconnecting)", null, true);
          this.socket.write(burst);
        });
      }
    }));
    // a failed send does not stop the ones after it
    this.sendChain = sent.catch(() => undefined);
    await sent;
    return `${reply.chatId}:${Date.now()}`;
  }

  /**
   * Registers as the channel does (PASS from secret_env, NICK, USER), waits for the welcome (001) and QUITs; nothing
   * is joined. A nick in use (the running channel's own) is tried again with an underscore.
   */
  checkCredentials(): Promise<string> {
    const where = `${this.host}:${this.port}`;
    return new Promise((resolve, reject) => {
      let nick = this.nick;
      let buffer = "";
      const decoder = new TextDecoder();
      let socket: Socket<undefined> | null = null;
      let settled = false;
      const finish = (outcome: { detail: string } | { why: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if ("detail" in outcome) resolve(outcome.detail);
        else
          reject(
            new PrxError("CHANNEL_PLATFORM", `irc: ${where}: ${outcome.why}`, {
              hint: `check server, tls, nick and the server password in secret_env in [channels.${this.name}]`,
            }),
          );
        // ending the socket calls close at once: the outcome is settled first
        socket?.end();
      };
      const timer = setTimeout(() => finish({ why: `no welcome within ${this.limits.requestTimeoutMs} ms` }), this.limits.requestTimeoutMs);
      const handle = (line: IrcLine, s: Socket<undefined>) => {
        if (line.command === "PING") s.write(`PONG :${line.params.at(-1) ?? ""}\r\n`);
        else if (line.command === "001") {
          s.write("QUIT :credential check\r\n");
          finish({ detail: `IRC server ${line.prefix || where} welcomed ${line.params[0] ?? nick}` });
        } else if (line.command === "433") s.write(`NICK ${(nick = `${nick}_`.slice(0, 30))}\r\n`);
        else if (line.command === "ERROR" || /^[45]\d\d$/.test(line.command)) finish({ why: `${line.command} ${line.params.at(-1) ?? ""}`.trim() });
      };
      Bun.connect({
        hostname: this.host,
        port: this.port,
        tls: this.setup.config.tls ?? true,
        socket: {
          open: (s) => {
            if (settled) return void s.end();
            socket = s;
            const password = this.secret("secret_env");
            s.write(`${password ? `PASS ${password}\r\n` : ""}NICK ${nick}\r\nUSER ${nick} 0 * :prx\r\n`);
          },
          data: (s, chunk) => {
            buffer += decoder.decode(chunk, { stream: true });
            for (let newline: number; !settled && (newline = buffer.indexOf("\n")) >= 0; buffer = buffer.slice(newline + 1)) {
              const line = parseIrcLine(buffer.slice(0, newline).replace(/\r$/, ""));
              if (line) handle(line, s);
            }
            if (Buffer.byteLength(buffer) > IRC_MAX_LINE_BYTES) finish({ why: `a line over ${IRC_MAX_LINE_BYTES} bytes` });
          },
          close: () => finish({ why: "the server closed the connection before its welcome" }),
          error: (_s, error) => finish({ why: errorMessage(error) }),
          connectError: (_s, error) => finish({ why: `cannot connect: ${errorMessage(error)}` }),
        },
      }).catch((error: unknown) => finish({ why: `cannot connect: ${errorMessage(error)}` }));
    });
  }
}
