import { errorMessage } from "../../core/errors.ts";
import { checkTokenTimes, readBearerJwt, VerifiedTokens } from "../bearer-jwt.ts";
import { TEAMS_CLOCK_SKEW_S, TEAMS_KEYS_MIN_REFRESH_MS, TEAMS_KEYS_TTL_MS } from "../limits.ts";
import { platformJson } from "../platform-json.ts";
import { JwkSchema, JwksSchema, OpenIdMetadataSchema } from "./wire.ts";

type SigningKey = { key: CryptoKey; endorsements: string[] | null };

export type TokenCheck = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

export interface BotTokenVerifierOptions {
  openIdUrl: string;
  issuer: string;
  /** The bot's app id: the token's audience. */
  audience: string;
  timeoutMs: number;
  signal: AbortSignal;
  now?: () => number;
}

/**
 * Checks the bearer token of an inbound Bot Framework request as Microsoft documents it: RS256 signed by a key of
 * the JWKS named by the OpenID metadata (keys cached TEAMS_KEYS_TTL_MS; an unknown key id refreshes them, at most
 * once per TEAMS_KEYS_MIN_REFRESH_MS), the issuer, the audience (the app id), exp and nbf within
 * TEAMS_CLOCK_SKEW_S, the key endorsed for the activity's channel, and the serviceUrl claim equal to the activity's.
 */
export class BotTokenVerifier {
  private keys = new Map<string, SigningKey>();
  private readonly verified = new VerifiedTokens<SigningKey>();
  private fetchedAt = -Infinity;
  private refreshing: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: BotTokenVerifierOptions) {
    this.now = o.now ?? Date.now;
  }

  private async refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const bounds = { timeoutMs: this.o.timeoutMs, signal: this.o.signal };
        const meta = await platformJson({ platform: "teams", what: "OpenID metadata", url: this.o.openIdUrl, schema: OpenIdMetadataSchema, bounds });
        const jwks = await platformJson({ platform: "teams", what: "signing keys", url: meta.jwks_uri, schema: JwksSchema, bounds });
        const keys = new Map<string, SigningKey>();
        for (const raw of jwks.keys) {
          const jwk = JwkSchema.safeParse(raw);
          if (!jwk.success) continue;
          const key = await crypto.subtle.importKey("jwk", { kty: "RSA", n: jwk.data.n, e: jwk.data.e, alg: "RS256", ext: true }, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["verify"]);
          keys.set(jwk.data.kid, { key, endorsements: jwk.data.endorsements ?? null });
        }
        this.keys = keys;
        this.fetchedAt = this.now();
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private async key(kid: string): Promise<SigningKey | undefined> {
    const age = this.now() - this.fetchedAt;
    if (age > TEAMS_KEYS_TTL_MS || (!this.keys.has(kid) && age > TEAMS_KEYS_MIN_REFRESH_MS)) await this.refresh();
    return this.keys.get(kid);
  }

  /** `serviceUrl` and `channelId` of the activity (null when the body is not one: the token is still checked). */
  async verify(authorization: string | undefined, serviceUrl: string | null, channelId: string | null = null): Promise<TokenCheck> {
    const known = this.verified.get(authorization);
    const jwt = known?.jwt ?? readBearerJwt(authorization);
    if (!jwt.ok) return jwt;
    const { header, claims } = jwt;
    if (header.alg !== "RS256" || !header.kid) return { ok: false, reason: `token algorithm ${header.alg} is not RS256 with a key id` };
    let key: SigningKey | undefined;
    try {
      key = await this.key(header.kid);
    } catch (error) {
      return { ok: false, reason: `signing keys unavailable: ${errorMessage(error)}` };
    }
    if (!key) return { ok: false, reason: "token signed by an unknown key" };
    if (known?.key !== key) {
      if (!(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key.key, jwt.signature, jwt.signed))) return { ok: false, reason: "signature mismatch" };
      this.verified.set(authorization!, jwt, key);
    }
    // a key endorsed for some channels signs for those alone
    if (channelId !== null && key.endorsements !== null && !key.endorsements.includes(channelId)) return { ok: false, reason: `signing key not endorsed for ${channelId}` };
    const nowS = this.now() / 1000;
    if (claims.iss !== this.o.issuer) return { ok: false, reason: `issuer ${claims.iss} is not ${this.o.issuer}` };
    if (claims.aud !== this.o.audience) return { ok: false, reason: "audience is not this bot's app id" };
    const late = checkTokenTimes(claims, nowS, TEAMS_CLOCK_SKEW_S);
    if (late) return { ok: false, reason: late };
    const claimed = claims.serviceurl ?? claims.serviceUrl;
    if (serviceUrl !== null && claimed !== undefined && claimed !== serviceUrl) return { ok: false, reason: "serviceUrl claim does not match the activity" };
    return { ok: true, claims };
  }
}
