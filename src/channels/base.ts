import type { ChannelConfig, ChannelKind } from "../config/schema.ts";
import { secretFromEnv } from "../config/secrets.ts";
import { errorMessage, isPrxError, PrxError } from "../core/errors.ts";
import { parseJsonBounded } from "../core/json/index.ts";
import { CHANNEL_MAX_HTTP_BODY_BYTES, CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES, platformLimits, type PlatformLimits } from "./limits.ts";
import type { SignatureCheck } from "./signature.ts";
import { withRetries } from "./send-retries.ts";
import type {
  Channel,
  ChannelCapabilities,
  ChannelHealth,
  ChannelSetup,
  ForwardedRequest,
  ForwardedResponse,
  InboundMessage,
  OnMessage,
  OutboundAttachment,
  OutboundReply,
  ReplyTarget,
} from "./types.ts";

/** A JSON answer to a forwarded request. */
/** A forwarded request whose body is over CHANNEL_MAX_HTTP_BODY_BYTES: its 413, else null. */
export function refuseOversized(request: ForwardedRequest): ForwardedResponse | null {
  return Buffer.byteLength(request.body) > CHANNEL_MAX_HTTP_BODY_BYTES ? jsonAnswer(413, { error: `body over ${CHANNEL_MAX_HTTP_BODY_BYTES} bytes` }) : null;
}

export function jsonAnswer(status: number, body: unknown): ForwardedResponse {
  return { status, headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify(body) };
}

/** The `[channels.<name>]` keys that name an environment variable holding a secret. */
export type SecretKey = Extract<keyof ChannelConfig, `${string}_env`>;

/**
 * What every platform adapter shares, so a platform is its wire code and nothing else: its name and setup, the
 * platform time limits, one stop signal for all its calls and loops, its health, the count of inbound requests
 * refused for a missing or forged signature, secrets read from the variables config names, and sends retried with
 * the platform backoff. A platform declares its kind and capabilities and implements start (connect, then hand each
 * normalised message to `onMessage`) and send; typing defaults to nothing. A platform that can send files declares
 * `attachments: true` and implements `upload`; the base checks the file's size and retries the upload with the
 * platform backoff.
 */
export abstract class PlatformChannel implements Channel {
  abstract readonly kind: ChannelKind;
  abstract readonly capabilities: ChannelCapabilities;
  readonly name: string;
  protected readonly limits: PlatformLimits;
  protected readonly stopper = new AbortController();
  protected state: ChannelHealth = { ok: false, detail: "not started" };
  /** The adapter's receive loop (polling, socket, stream): stop() waits for it. */
  protected loop: Promise<unknown> | null = null;
  private refusedRequests = 0;

  constructor(protected readonly setup: ChannelSetup) {
    this.name = setup.name;
    this.limits = platformLimits(setup.limits);
  }

  abstract start(onMessage: OnMessage): Promise<void>;
  abstract send(reply: OutboundReply): Promise<string>;

  async typing(_chatId: string, _threadId: string | null): Promise<void> {}

  /** One file to the platform, in its own message (capabilities.attachments); the platform's message id. */
  protected upload?(target: ReplyTarget, attachment: OutboundAttachment): Promise<string>;

  /** A file after the reply's text: within CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES, uploaded with the platform backoff. */
  async sendAttachment(target: ReplyTarget, attachment: OutboundAttachment): Promise<string> {
    const upload = this.upload?.bind(this);
    if (!upload || !this.capabilities.attachments) {
      throw new PrxError("CHANNEL_PLATFORM", `${this.kind}: channel ${this.name} cannot send files`, { hint: "link the file in the text, or send it through a platform that takes files" });
    }
    if (attachment.bytes.byteLength > CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES) {
      throw new PrxError("PAYLOAD_TOO_LARGE", `${attachment.name} is ${attachment.bytes.byteLength} bytes, over the limit of ${CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES} for a file a reply sends`);
    }
    return this.retrying(`${this.kind} file upload`, () => upload(target, attachment));
  }

  health(): ChannelHealth {
    return this.state;
  }

  /** Inbound requests refused for a missing or forged signature since the process started. */
  get rejected(): number {
    return this.refusedRequests;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop?.catch((error: unknown) => this.setup.logger.debug(`${this.kind} receive loop ended with: ${errorMessage(error)}`));
  }

  /** The secret in the variable `[channels.<name>] key` names; `missing` is the error when it is absent or empty. */
  protected secret(key: SecretKey): string | undefined {
    return secretFromEnv(this.setup.config[key], this.setup.env);
  }

  /** The secret, or a CHANNEL_CONFIG error naming the key and an example variable to set. */
  protected requireSecret(key: SecretKey, what: string, example: string): string {
    const value = this.secret(key);
    if (!value) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: no ${what} (${key} is not set or its variable is empty)`, {
        hint: `set ${key} = "${example}" in [channels.${this.name}] and export that variable`,
      });
    }
    return value;
  }

  /** A request refused at the door (missing or forged signature): counted, and logged as a warning. */
  protected refuseRequest(reason: string): void {
    this.refusedRequests += 1;
    this.setup.logger.warn(`${this.kind}: refused a request: ${reason}`);
  }

  /**
   * Wait for the first connection of a socket platform, at most firstConnectWaitMs (then the process reports itself
   * started and keeps connecting). The wait's timer is let go once one of them settles: a pending timer would keep a
   * stopping process alive until it fired.
   */
  protected async firstConnection(...connected: Array<Promise<unknown>>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.limits.firstConnectWaitMs)));
    try {
      await Promise.race([...connected, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A request the gateway forwarded, at the door: its size (CHANNEL_MAX_HTTP_BODY_BYTES, 413), the platform's
   * signature (401, counted) and JSON (400). Either the refusal to answer with, or the parsed body.
   */
  protected admitSigned(request: ForwardedRequest, check: SignatureCheck): { refused: ForwardedResponse } | { json: unknown } {
    const oversized = refuseOversized(request);
    if (oversized) return { refused: oversized };
    if (!check.ok) {
      this.refuseRequest(`bad signature: ${check.reason}`);
      return { refused: jsonAnswer(401, { error: `bad signature: ${check.reason}` }) };
    }
    try {
      return { json: parseJsonBounded(request.body, "body") };
    } catch (error) {
      return { refused: jsonAnswer(400, { error: isPrxError(error) ? error.message : "body is not JSON" }) };
    }
  }

  /**
   * An inbound message of a request the gateway forwarded, stored before the platform gets its 200 (one it delivers
   * again is answered once); 503 when it could not be stored, so the platform retries.
   */
  protected async acceptForwarded(onMessage: OnMessage, message: InboundMessage): Promise<ForwardedResponse> {
    try {
      await onMessage(message);
    } catch (error) {
      return jsonAnswer(503, { error: isPrxError(error) ? error.message : "not stored; retry" });
    }
    return this.storedAnswer(jsonAnswer(200, {}));
  }

  /**
   * The answer to a forwarded request whose messages are stored, given once the work they started has run as far as
   * it goes without waiting (a turn's request to the provider is on its way): answered at once, the gateway relaying
   * it and the platform taking it came between each message and its turn.
   */
  protected async storedAnswer(answer: ForwardedResponse): Promise<ForwardedResponse> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return answer;
  }

  /** A send (or other write) retried with the platform backoff, each retry logged with what failed. */
  protected retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return withRetries(fn, this.stopper.signal, (error, wait) => this.setup.logger.warn(`${what} failed, retrying in ${wait} ms: ${errorMessage(error)}`));
  }
}
