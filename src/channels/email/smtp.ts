import SMTPConnection, { type SMTPConnectionOptions } from "nodemailer/lib/smtp-connection";

export interface SmtpLogin {
  user: string;
  pass: string;
}

/**
 * One SMTP submission connection kept open between replies (no TCP, TLS and AUTH set-up per reply), opened at the
 * first send and again after the server closed it; messages go over it one at a time. The message is handed over as
 * the bytes DATA carries (compose.ts): no MIME tree is built per reply. A failed send closes the connection (the next
 * one opens a new one); the error keeps nodemailer's `code` and `responseCode`.
 */
export class SmtpSender {
  private connection: SMTPConnection | null = null;
  private opening: Promise<SMTPConnection> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly options: SMTPConnectionOptions,
    private readonly login: () => SmtpLogin,
  ) {}

  /** Sends `raw` from `from` to `to`; resolves once the server accepted it. */
  send(from: string, to: string, raw: string): Promise<void> {
    const sent = this.queue.then(() => this.sendNow(from, to, raw));
    this.queue = sent.catch(() => undefined);
    return sent;
  }

  /** Connects and logs in, then says QUIT: nothing is sent. */
  async verify(): Promise<void> {
    const connection = await this.open();
    if (this.connection === connection) this.connection = null;
    connection.quit();
  }

  close(): void {
    this.closed = true;
    this.connection?.quit();
    this.connection = null;
  }

  private async sendNow(from: string, to: string, raw: string): Promise<void> {
    const connection = await this.open();
    try {
      await new Promise<void>((resolve, reject) => connection.send({ from, to: [to] }, raw, (error) => (error ? reject(error) : resolve())));
    } catch (error) {
      this.drop(connection);
      throw error;
    }
  }

  private open(): Promise<SMTPConnection> {
    if (this.closed) return Promise.reject(Object.assign(new Error("the SMTP client is closed"), { code: "ECONNECTION" }));
    if (this.connection) return Promise.resolve(this.connection);
    this.opening ??= this.connect().finally(() => (this.opening = null));
    return this.opening;
  }

  private async connect(): Promise<SMTPConnection> {
    const connection = new SMTPConnection(this.options);
    // while it opens, a failure comes as an 'error' event (or an 'end' before the greeting), not to connect()'s callback
    let failed!: (error: unknown) => void;
    const failure = new Promise<never>((_, reject) => (failed = reject));
    failure.catch(() => undefined);
    // later, an idle connection the server ends (its timeout, a restart) is dropped; a send in flight gets the error itself
    connection.on("error", (error: Error) => {
      failed(error);
      this.drop(connection);
    });
    connection.once("end", () => {
      failed(Object.assign(new Error("the SMTP server closed the connection"), { code: "ECONNECTION" }));
      this.drop(connection);
    });
    const step = (run: (done: (error?: Error | null) => void) => void) =>
      Promise.race([failure, new Promise<void>((resolve, reject) => run((error) => (error ? reject(error) : resolve())))]);
    try {
      await step((done) => connection.connect(done));
      if (connection.allowsAuth) {
        const { user, pass } = this.login();
        await step((done) => connection.login({ user, pass }, done));
      }
    } catch (error) {
      connection.close();
      throw error;
    }
    if (this.closed) {
      connection.quit();
      throw Object.assign(new Error("the SMTP client is closed"), { code: "ECONNECTION" });
    }
    this.connection = connection;
    return connection;
  }

  private drop(connection: SMTPConnection): void {
    if (this.connection === connection) this.connection = null;
    connection.close();
  }
}
