import { z } from "zod";

const HeaderSchema = z.looseObject({ alg: z.string(), kid: z.string().optional() });
const ClaimsSchema = z.looseObject({ iss: z.string(), aud: z.string(), exp: z.number(), iat: z.number().optional(), nbf: z.number().optional() });

export type BearerJwt =
  | { ok: false; reason: string }
  | { ok: true; header: z.infer<typeof HeaderSchema>; claims: z.infer<typeof ClaimsSchema>; signed: Uint8Array; signature: Uint8Array };

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
