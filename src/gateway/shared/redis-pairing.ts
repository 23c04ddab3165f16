import type { SupervisedRedis } from "../../storage/redis/index.ts";
import { randomInt } from "node:crypto";
import { sha256Hex } from "../../core/ids.ts";
import type { PairingGateApi } from "../auth/service.ts";
import type { PairingAttempt } from "../auth/pairing.ts";
import { PAIRING_CODE_DIGITS, PAIRING_LOCKOUT_MS, PAIRING_MAX_FAILURES } from "../limits.ts";

/**
 * One attempt, atomically: locked -> locked; the code's digest matches -> consumed, ok; else one more failure for
 * the client (remembered for the lockout window), locked at PAIRING_MAX_FAILURES; closed when no code is open.
 * KEYS: code, failures of the client, lock of the client. ARGV: presented digest, max failures, lockout ms.
 */
const ATTEMPT = `
local locked = redis.call('PTTL', KEYS[3])
if locked > 0 then return {'locked', math.ceil(locked / 1000)} end
local code = redis.call('GET', KEYS[1])
if code and code == ARGV[1] then
  redis.call('DEL', KEYS[1], KEYS[2])
  return {'ok', 0}
end
local count = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
if count >= tonumber(ARGV[2]) then
  redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[3]))
  redis.call('DEL', KEYS[2])
  return {'locked', math.ceil(tonumber(ARGV[3]) / 1000)}
end
if not code then return {'closed', 0} end
return {'wrong', tonumber(ARGV[2]) - count}
`;

/**
 * The pairing code and the lockouts of clients sending wrong ones, shared by every replica: the code printed by one
 * replica is accepted by any, once; five wrong codes through any replicas lock the client out of all of them.
 */
export class RedisPairingGate implements PairingGateApi {
  constructor(
    private readonly redis: Pick<SupervisedRedis, "send">,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private key(name: string): string {
    return `${this.prefix}:pairing:${name}`;
  }

  async issue(): Promise<{ code: string; expiresAt: number }> {
    const code = String(randomInt(0, 10 ** PAIRING_CODE_DIGITS)).padStart(PAIRING_CODE_DIGITS, "0");
    await this.redis.send("SET", [this.key("code"), sha256Hex(code), "PX", String(this.ttlMs)]);
    return { code, expiresAt: this.now() + this.ttlMs };
  }

  async attempt(client: string, presented: string): Promise<PairingAttempt> {
    const [outcome, n] = (await this.redis.send("EVAL", [
      ATTEMPT,
      "3",
      this.key("code"),
      this.key(`failures:${client}`),
      this.key(`lock:${client}`),
      sha256Hex(presented),
      String(PAIRING_MAX_FAILURES),
      String(PAIRING_LOCKOUT_MS),
    ])) as [string, number];
    switch (outcome) {
      case "ok":
        return { ok: true };
      case "locked":
        return { ok: false, reason: "locked", retryAfterS: n };
      case "closed":
        return { ok: false, reason: "closed" };
      default:
        return { ok: false, reason: "wrong", attemptsLeft: n };
    }
  }
}
