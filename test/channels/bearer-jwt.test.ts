/** The verified-token cache the token-checked platforms share (Teams, Google Chat): bounded, oldest let go first. */
import { expect, test } from "bun:test";
import { readBearerJwt, VerifiedTokens, type DecodedJwt } from "../../src/channels/bearer-jwt.ts";
import { CHANNEL_VERIFIED_TOKENS_MAX } from "../../src/channels/limits.ts";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const header = (n: number) => `Bearer ${part({ alg: "RS256", kid: "k1" })}.${part({ iss: "i", aud: "a", exp: n })}.c2ln`;
const decoded = (authorization: string) => readBearerJwt(authorization) as DecodedJwt;

test(`${CHANNEL_VERIFIED_TOKENS_MAX} tokens are kept; one more lets the oldest go; one seen again is kept as the newest`, () => {
  const tokens = new VerifiedTokens<string>();
  for (let n = 1; n <= CHANNEL_VERIFIED_TOKENS_MAX; n++) tokens.set(header(n), decoded(header(n)), "key");
  expect(tokens.size).toBe(CHANNEL_VERIFIED_TOKENS_MAX);
  expect(tokens.get(header(1))?.jwt.claims.exp).toBe(1);
  // token 1 set again: token 2 is now the oldest
  tokens.set(header(1), decoded(header(1)), "key");
  tokens.set(header(CHANNEL_VERIFIED_TOKENS_MAX + 1), decoded(header(CHANNEL_VERIFIED_TOKENS_MAX + 1)), "key");
  expect(tokens.size).toBe(CHANNEL_VERIFIED_TOKENS_MAX);
  expect(tokens.get(header(2))).toBeUndefined();
  expect(tokens.get(header(1))?.key).toBe("key");
  expect(tokens.get(header(CHANNEL_VERIFIED_TOKENS_MAX + 1))?.jwt.claims.exp).toBe(CHANNEL_VERIFIED_TOKENS_MAX + 1);
  expect(tokens.get(undefined)).toBeUndefined();
});
