import type { SQL } from "bun";
import { judgeGuess, type GatewayPairingRow } from "../gateway-pairing-rules.ts";
import type { GatewayPairingStore, PairingCodeGuess } from "../types.ts";
import { pg } from "./connect.ts";

/** The gateway's pairing code in PostgreSQL: one code and one count of wrong guesses for every replica. */
export class PgGatewayPairingStore implements GatewayPairingStore {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number = Date.now,
  ) {}

  async open(codeSha256: string, expiresAt: number): Promise<void> {
    await pg("pairing code open", () =>
      this.sql.unsafe(
        "INSERT INTO gateway_pairing_code (one, code_sha256, expires_at, wrong) VALUES (true, $1, $2, 0) " +
          "ON CONFLICT (one) DO UPDATE SET code_sha256 = excluded.code_sha256, expires_at = excluded.expires_at, wrong = 0",
        [codeSha256, expiresAt],
      ),
    );
  }

  guess(codeSha256: string, maxWrong: number): Promise<PairingCodeGuess> {
    return pg("pairing code guess", () =>
      this.sql.begin(async (tx): Promise<PairingCodeGuess> => {
        const row = ((await tx.unsafe("SELECT code_sha256, expires_at, wrong FROM gateway_pairing_code FOR UPDATE")) as GatewayPairingRow[])[0];
        const { guess, next } = judgeGuess(row ?? null, codeSha256, maxWrong, this.now());
        if (next === "consumed") await tx.unsafe("DELETE FROM gateway_pairing_code");
        else if (next) await tx.unsafe("UPDATE gateway_pairing_code SET wrong = $1", [next.wrong]);
        return guess;
      }),
    );
  }
}
