import { then } from "../../core/awaitable.ts";
import { PrxError } from "../../core/errors.ts";
import { settingNow, type Setting } from "../../core/setting.ts";
import type { GatewayPairingStore, TokenRecord, TokenStore } from "../../storage/types.ts";
import { BEARER_MAX_CHARS, PAIRING_CODE_LENGTH, PAIRING_CODE_MAX_WRONG } from "../limits.ts";
import { MemoryPairingLockout } from "./lockout.ts";
import { PairingGate } from "./pairing.ts";
import type { PairingLockout } from "./types.ts";

/**
 * Who made a request: a bearer token, or nobody when pairing is off.
 * Idempotency keys and rate limits are per credential.
 */
export interface Credential {
  id: string;
  name: string;
  kind: "token" | "open" | "control";
}

export const OPEN_CREDENTIAL: Credential = { id: "open", name: "open (pairing disabled)", kind: "open" };
/** The commands of the gateway's own workspace (`prx status`, `prx plugins reload`), by the token in data/gateway.json. */
export const CONTROL_CREDENTIAL: Credential = { id: "control", name: "prx commands of this workspace", kind: "control" };

export interface AuthOptions<T extends TokenStore = TokenStore> {
  /** Where tokens live: the workspace storage's token store (PostgreSQL shares them across replicas). */
  tokens: T;
  /** The pairing code and its count of wrong guesses: the workspace storage, shared by every process on it. */
  pairingCodes: GatewayPairingStore;
  /** Lockouts of client addresses sending wrong codes (default: this process's); Redis shares them across replicas. */
  pairingLockout?: PairingLockout;
  /** `gateway.require_pairing`; when false every request is accepted as OPEN_CREDENTIAL. */
  required: Setting<boolean>;
  pairingCodeTtlMs: Setting<number>;
  now: () => number;
  /** This run's control token (presence.ts): accepted as CONTROL_CREDENTIAL, never stored. */
  controlToken?: string;
}

/** Bearer auth and pairing; typed by its token store, so callers holding the SQLite one keep its synchronous calls. */
export class AuthService<T extends TokenStore = TokenStore> {
  readonly tokens: T;
  readonly pairing: PairingGate;
  private readonly requirePairing: Setting<boolean>;
  private readonly controlToken: string | undefined;

  constructor(options: AuthOptions<T>) {
    this.requirePairing = options.required;
    this.controlToken = options.controlToken;
    this.tokens = options.tokens;
    this.pairing = new PairingGate(
      options.pairingCodes,
      options.pairingLockout ?? new MemoryPairingLockout(options.now),
      options.pairingCodeTtlMs,
      options.now,
    );
  }

  /** Whether a request needs a token (`gateway.require_pairing` in effect now). */
  get required(): boolean {
    return settingNow(this.requirePairing);
  }

  /** At start: when auth is on and no live token exists, open pairing and return the code to print. */
  async openPairingIfUnpaired(): Promise<{ code: string; expiresAt: number } | null> {
    if (!this.required || (await this.tokens.activeCount()) > 0) return null;
    return this.pairing.issue();
  }

  /**
   * Checks an Authorization header; throws UNAUTHORIZED naming what is wrong. Synchronous while the token store
   * answers synchronously (SQLite, or a token PostgreSQL verified within TOKEN_CACHE_TTL_MS).
   */
  authenticate(header: string | null): Credential | Promise<Credential> {
    if (!this.required) return OPEN_CREDENTIAL;
    if (!header) {
      throw new PrxError("UNAUTHORIZED", "missing Authorization header; send Authorization: Bearer <token> (or x-api-key: <token>)", {
        hint:
          "pair with POST /pair (code printed at gateway start or by `prx gateway pair-code`), or create a token " +
          "with `prx gateway token create`",
      });
    }
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw new PrxError("UNAUTHORIZED", "malformed Authorization header; expected `Bearer <token>`");
    if (match[1]!.length > BEARER_MAX_CHARS) {
      throw new PrxError(
        "UNAUTHORIZED",
        `bearer token longer than ${BEARER_MAX_CHARS} characters; tokens look like prx_…`,
      );
    }
    const presented = match[1]!;
    if (this.controlToken !== undefined && presented.startsWith("prx_ctl_")) {
      const given = Buffer.from(presented);
      const expected = Buffer.from(this.controlToken);
      // Bun's global crypto.timingSafeEqual: node:crypto, which builds Node's streams, stays unloaded at start
      if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) return CONTROL_CREDENTIAL;
      throw new PrxError("UNAUTHORIZED", "this control token is not the running gateway's", {
        hint: "it changes with every start of the gateway; commands read the current one from data/gateway.json",
      });
    }
    return then(this.tokens.verify(presented), credentialOf);
  }

  /** Exchange the one-time code for a new token. Throws 401 (wrong), 403 (closed or burned) or 429 (locked out). */
  async pair(client: string, code: string | null, name: string): Promise<{ token: string; record: TokenRecord }> {
    if (!this.required) {
      throw new PrxError("FORBIDDEN", "pairing is disabled (gateway.require_pairing = false); no token is needed", {
        status: 409,
      });
    }
    if (!code)
      throw new PrxError("UNAUTHORIZED", `missing X-Pairing-Code header with the ${PAIRING_CODE_LENGTH}-character code`, {
        hint: CODE_HINT,
      });
    const result = await this.pairing.attempt(client, code);
    if (result.ok) return this.tokens.create(name);
    if (result.reason === "locked") {
      throw new PrxError(
        "RATE_LIMITED",
        `too many wrong pairing codes from ${client}; pairing from it is locked for ${result.retryAfterS} s`,
        {
          hint:
            "on the gateway's machine, `prx gateway token create` prints a token at once (it needs no pairing code " +
            "and no lockout applies to it); otherwise wait and send the code printed at start or by `prx gateway pair-code`",
          details: { retryAfterS: result.retryAfterS },
        },
      );
    }
    if (result.reason === "burned") {
      throw new PrxError(
        "FORBIDDEN",
        `pairing code burned: it took more than ${PAIRING_CODE_MAX_WRONG} wrong guesses (from any address), so even ` +
          "the right one is refused now",
        {
          hint:
            "on the gateway's machine, `prx gateway pair-code` prints a new code for the running gateway " +
            "(or `prx gateway token create` prints a token)",
        },
      );
    }
    if (result.reason === "closed") {
      throw new PrxError(
        "FORBIDDEN",
        "pairing is closed: the code expired, was already used, or a token already exists",
        {
          hint:
            "on the gateway's machine, `prx gateway pair-code` prints a new code for the running gateway " +
            "(or `prx gateway token create` prints a token)",
        },
      );
    }
    const left = result.attemptsLeft === 1 ? "1 attempt" : `${result.attemptsLeft} attempts`;
    throw new PrxError("UNAUTHORIZED", `wrong pairing code (${left} left before a lockout)`, { hint: CODE_HINT });
  }
}

const CODE_HINT =
  `send the ${PAIRING_CODE_LENGTH}-character code the gateway printed at start or \`prx gateway pair-code\` printed, ` +
  "or run `prx gateway token create` on its machine";

function credentialOf(record: TokenRecord | null): Credential {
  if (!record) {
    throw new PrxError("UNAUTHORIZED", "invalid or revoked bearer token", {
      hint: "pair again or create a token with `prx gateway token create`",
    });
  }
  return { id: record.id, name: record.name, kind: "token" };
}
