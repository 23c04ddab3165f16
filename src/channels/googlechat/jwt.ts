import { verify, X509Certificate, type KeyObject } from "node:crypto";
import { errorMessage } from "../../core/errors.ts";
import { checkTokenTimes, readBearerJwt, VerifiedTokens } from "../bearer-jwt.ts";
import { GOOGLE_CHAT_CLOCK_SKEW_S, GOOGLE_CHAT_KEYS_MAX_TTL_MS, GOOGLE_CHAT_KEYS_MIN_REFRESH_MS, GOOGLE_CHAT_KEYS_MIN_TTL_MS } from "../limits.ts";
import { PlatformError } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { GOOGLE_CHAT_ISSUER, GoogleCertsSchema } from "./wire.ts";

export type ChatTokenCheck = { ok: true } | { ok: false; reason: string };

/**
 * What a valid bearer token of the app's authentication audience looks like
 * (https://developers.google.com/workspace/chat/verify-requests-from-chat):
 * - Project Number: a JWT issued by chat@system.gserviceaccount.com for the project number, signed by a key of that
 *   account's X.509 certificates;
 * - HTTP endpoint URL: a Google OIDC ID token for the endpoint URL whose verified `email` is
 *   chat@system.gserviceaccount.com, signed by a key of Google's OIDC certificates.
 */
export interface ChatAudience {
  issuers: string[];
  audience: string;
  /** The ID token's `email` (endpoint-URL audience). */
  email?: string;
  certsUrl: string;
}

export interface ChatTokenVerifierOptions extends ChatAudience {
  timeoutMs: number;
  signal: AbortSignal;
  now?: () => number;
}

/** The Cache-Control max-age of an answer, in ms, within the key cache's bounds (its minimum when absent). */
function maxAgeMs(cacheControl: string | null): number {
  const seconds = Number(/max-age=(\d{1,10})/.exec(cacheControl ?? "")?.[1] ?? "0");
  return Math.min(GOOGLE_CHAT_KEYS_MAX_TTL_MS, Math.max(GOOGLE_CHAT_KEYS_MIN_TTL_MS, seconds * 1000));
}

/**
 * Checks the bearer token of an inbound Chat event: RS256 signed by a certificate of the audience's set (cached as
 * long as Google's Cache-Control says, within bounds; a token signed by an unknown key refreshes them at most every
 * GOOGLE_CHAT_KEYS_MIN_REFRESH_MS), its issuer, audience, email when asked, and exp/nbf/iat within
 * GOOGLE_CHAT_CLOCK_SKEW_S.
 */
export class ChatTokenVerifier {
  private keys = new Map<string, KeyObject>();
  private readonly verified = new VerifiedTokens<KeyObject>();
  private fetchedAt = -Infinity;
  private ttlMs = 0;
  private refreshing: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: ChatTokenVerifierOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Fetch the certificates now (start, `prx channel doctor`): how many there are. */
  async refresh(): Promise<number> {
    this.refreshing ??= (async () => {
      try {
        const answer = await platformRequest("googlechat", "signing certificates", this.o.certsUrl, { headers: { accept: "application/json" } }, { timeoutMs: this.o.timeoutMs, signal: this.o.signal });
        if (!answer.ok) throw new PlatformError("googlechat", `signing certificates: HTTP ${answer.status}`, answer.status, true);
        const certs = GoogleCertsSchema.safeParse(JSON.parse(answer.text));
        if (!certs.success) throw new PlatformError("googlechat", "signing certificates: not a map of key ids to PEM certificates", answer.status, false);
        const keys = new Map<string, KeyObject>();
        for (const [kid, pem] of Object.entries(certs.data)) keys.set(kid, new X509Certificate(pem).publicKey);
        this.keys = keys;
        this.fetchedAt = this.now();
        this.ttlMs = maxAgeMs(answer.headers.get("cache-control"));
      } finally {
        this.refreshing = null;
      }
    })();
    await this.refreshing;
    return this.keys.size;
  }

  private async key(kid: string): Promise<KeyObject | undefined> {
    const age = this.now() - this.fetchedAt;
    if (age > this.ttlMs || (!this.keys.has(kid) && age > GOOGLE_CHAT_KEYS_MIN_REFRESH_MS)) await this.refresh();
    return this.keys.get(kid);
  }

  async verify(authorization: string | undefined): Promise<ChatTokenCheck> {
    const known = this.verified.get(authorization);
    const jwt = known?.jwt ?? readBearerJwt(authorization);
    if (!jwt.ok) return jwt;
    if (jwt.header.alg !== "RS256" || !jwt.header.kid) return { ok: false, reason: `token algorithm ${jwt.header.alg} is not RS256 with a key id` };
    let key: KeyObject | undefined;
    try {
      key = await this.key(jwt.header.kid);
    } catch (error) {
      return { ok: false, reason: `signing certificates unavailable: ${errorMessage(error)}` };
    }
    if (!key) return { ok: false, reason: "token signed by an unknown key" };
    if (known?.key !== key) {
      if (!verify("sha256", jwt.signed, key, jwt.signature)) return { ok: false, reason: "signature mismatch" };
      this.verified.set(authorization!, jwt, key);
    }
    const { claims } = jwt;
    if (!this.o.issuers.includes(claims.iss)) return { ok: false, reason: `issuer ${claims.iss} is not ${this.o.issuers.join(" or ")}` };
    if (claims.aud !== this.o.audience) return { ok: false, reason: "audience is not this app's" };
    if (this.o.email !== undefined && (claims.email !== this.o.email || claims.email_verified !== true)) return { ok: false, reason: `the ID token is not ${GOOGLE_CHAT_ISSUER}'s` };
    const late = checkTokenTimes(claims, this.now() / 1000, GOOGLE_CHAT_CLOCK_SKEW_S);
    return late ? { ok: false, reason: late } : { ok: true };
  }
}
