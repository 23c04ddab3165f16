import type { SupervisedRedis } from "../../storage/redis/index.ts";
import type { LockoutFailure, PairingLockout } from "../auth/types.ts";
import { PAIRING_LOCKOUT_MS, PAIRING_MAX_FAILURES } from "../limits.ts";

/**
 * One more wrong code from the client, atomically: counted for the lockout window, and at PAIRING_MAX_FAILURES
 * the client is locked out. KEYS: failures of the client, lock of the client. ARGV: max failures, lockout ms.
 */
const FAILED = `
local count = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
if count >= tonumber(ARGV[1]) then
  redis.call('SET', KEYS[2], '1', 'PX', tonumber(ARGV[2]))
  redis.call('DEL', KEYS[1])
  return {'locked', math.ceil(tonumber(ARGV[2]) / 1000)}
end
return {'left', tonumber(ARGV[1]) - count}
`;

/**
 * The lockouts of clients sending wrong pairing codes, shared by every replica: five wrong codes through any
 * replicas lock the client out of all of them. (The code itself and its budget of wrong guesses live in the
 * workspace storage, which the replicas share as well.)
 */
export class RedisPairingLockout implements PairingLockout {
  constructor(
    private readonly redis: Pick<SupervisedRedis, "send">,
    private readonly prefix: string,
  ) {}

  private key(name: string): string {
    return `${this.prefix}:pairing:${name}`;
  }

  async lockedFor(client: string): Promise<number> {
    const ms = (await this.redis.send("PTTL", [this.key(`lock:${client}`)])) as number;
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  async failed(client: string): Promise<LockoutFailure> {
    const [outcome, n] = (await this.redis.send("EVAL", [
      FAILED,
      "2",
      this.key(`failures:${client}`),
      this.key(`lock:${client}`),
      String(PAIRING_MAX_FAILURES),
      String(PAIRING_LOCKOUT_MS),
    ])) as [string, number];
    return outcome === "locked" ? { locked: true, retryAfterS: n } : { locked: false, attemptsLeft: n };
  }

  async forget(client: string): Promise<void> {
    await this.redis.send("DEL", [this.key(`failures:${client}`)]);
  }
}
