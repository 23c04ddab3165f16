import { sign } from "node:crypto";
import { GOOGLE_CHAT_ASSERTION_LIFETIME_S, GOOGLE_CHAT_TOKEN_RENEW_BEFORE_MS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { GOOGLE_CHAT_SCOPE, GoogleTokenErrorSchema, GoogleTokenSchema, type ServiceAccountKey } from "./wire.ts";

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * The bearer token of Chat API calls: the service account's JWT bearer grant
 * (https://developers.google.com/identity/protocols/oauth2/service-account#httprest): an assertion `{iss: the
 * account, scope: chat.bot, aud: the token endpoint, iat, exp}` signed RS256 with its private key, exchanged at the
 * token endpoint; kept until GOOGLE_CHAT_TOKEN_RENEW_BEFORE_MS before it expires.
 */
export class ServiceAccountTokens {
  private current: { token: string; until: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly o: { key: ServiceAccountKey; url: string; timeoutMs: number; signal: AbortSignal; now?: () => number }) {}

  get(): Promise<string> {
    const now = (this.o.now ?? Date.now)();
    if (this.current && now < this.current.until) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch(now).finally(() => (this.pending = null));
    return this.pending;
  }

  private assertion(now: number): string {
    const iat = Math.floor(now / 1000);
    const header = b64({ alg: "RS256", typ: "JWT", ...(this.o.key.private_key_id ? { kid: this.o.key.private_key_id } : {}) });
    const claims = b64({ iss: this.o.key.client_email, scope: GOOGLE_CHAT_SCOPE, aud: this.o.url, iat, exp: iat + GOOGLE_CHAT_ASSERTION_LIFETIME_S });
    const signature = sign("sha256", Buffer.from(`${header}.${claims}`), this.o.key.private_key).toString("base64url");
    return `${header}.${claims}.${signature}`;
  }

  private async fetch(now: number): Promise<string> {
    const body = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: this.assertion(now) });
    const init = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: body.toString() };
    const answer = await platformRequest("googlechat", "token", this.o.url, init, { timeoutMs: this.o.timeoutMs, signal: this.o.signal });
    let json: unknown = null;
    try {
      json = JSON.parse(answer.text);
    } catch {
      // said below with the status
    }
    if (!answer.ok) {
      const said = GoogleTokenErrorSchema.safeParse(json);
      const why = said.success ? `: ${said.data.error}${said.data.error_description ? ` (${said.data.error_description})` : ""}` : "";
      throw new PlatformError("googlechat", `token: HTTP ${answer.status}${why} (check the service account key in secret_env)`, answer.status, retryableStatus(answer.status));
    }
    const parsed = GoogleTokenSchema.safeParse(json);
    if (!parsed.success) throw new PlatformError("googlechat", "token: unexpected answer", answer.status, json === null);
    this.current = { token: parsed.data.access_token, until: now + parsed.data.expires_in * 1000 - GOOGLE_CHAT_TOKEN_RENEW_BEFORE_MS };
    return this.current.token;
  }
}
