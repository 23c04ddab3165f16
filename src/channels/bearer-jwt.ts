import { z } from "zod";
import { CHANNEL_VERIFIED_TOKENS_MAX } from "./limits.ts";

const HeaderSchema = z.looseObject({ alg: z.string(), kid: z.string().optional() });
const ClaimsSchema = z.looseObject({ iss: z.string(), aud: z.string(), exp: z.number(), iat: z.number().optional(), nbf: z.number().optional() });

export type DecodedJwt = { ok: true; header: z.infer<typeof HeaderSchema>; claims: z.infer<typeof ClaimsSchema>; signed: Uint8Array; signature: Uint8Array };
export type BearerJwt = { ok: false; reason: string } | DecodedJwt;

/**
 * The JWT of an `Authorization: Bearer <JWT>` header, decoded but not yet trusted: its header, its claims (iss, aud
 * and exp required), the signed bytes and the signature. A missing or malformed header says which.
 */
export function readBearerJwt(authorization: string | undefined): BearerJwt {
  const token = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization ?? "")?.[1];
  if (!token) return { ok: false, reason: authorization ? "malformed Authorization header" : "missing Authorization header" };
  const [h, p, s] = token.split(".") as [string, string, string];
  try {
    const header = HeaderSchema.parse(JSON.parse(Buffer.from(h, "base64url").toString("utf8")));
    const claims = ClaimsSchema.parse(JSON.parse(Buffer.from(p, "base64url").toString("utf8")));
    return { ok: true, header, claims, signed: new TextEncoder().encode(`${h}.${p}`), signature: new Uint8Array(Buffer.from(s, "base64url")) };
  } catch {
    return { ok: false, reason: "token is not a JWT" };
  }
}

/** exp, nbf and iat against now (seconds), with `skewS` of clock difference allowed. */
export function checkTokenTimes(claims: { exp: number; nbf?: number | undefined; iat?: number | undefined }, nowS: number, skewS: number): string | null {
  if (claims.exp + skewS < nowS) return "token expired";
  if (claims.nbf !== undefined && claims.nbf - skewS > nowS) return "token not valid yet";
  if (claims.iat !== undefined && claims.iat - skewS > nowS) return "token issued in the future";
  return null;
}

/**
 * Bearer tokens whose signature a key verified, by their Authorization header. A platform sends one token with its
 * requests until it expires (the Bot Framework's lasts an hour), and decoding and checking its RS256 signature is
 * the costliest step of admitting a request (~0.1 ms): a token seen again is taken decoded, and its signature is not
 * checked again while the key that verified it is the one its key id names now (a refresh that drops or replaces
 * that key checks it again). Its claims (issuer, audience, times) are checked at every request by the caller. At most
 * CHANNEL_VERIFIED_TOKENS_MAX are kept, the oldest let go first; only verified tokens enter, so a forger cannot
 * fill it.
 */
export class VerifiedTokens<K> {
  private readonly tokens = new Map<string, { jwt: DecodedJwt; key: K }>();

  get size(): number {
    return this.tokens.size;
  }

  /** The token of `authorization` as it was decoded, and the key that verified it; undefined if not verified here. */
  get(authorization: string | undefined): { jwt: DecodedJwt; key: K } | undefined {
    return authorization === undefined ? undefined : this.tokens.get(authorization);
  }

  /** `key` verified the signature of the token of `authorization`. */
  set(authorization: string, jwt: DecodedJwt, key: K): void {
    this.tokens.delete(authorization);
    if (this.tokens.size >= CHANNEL_VERIFIED_TOKENS_MAX) this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.set(authorization, { jwt, key });
  }
}
