import type { Database } from "bun:sqlite";
import { judgeGuess, type GatewayPairingRow } from "../gateway-pairing-rules.ts";
import type { GatewayPairingStore, PairingCodeGuess } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

/**
 * The gateway's pairing code in the workspace database: every process on the file (the gateway, `prx gateway
 * pair-code`) sees one code and one count of wrong guesses; a guess is judged in one write transaction.
 */
export class SqliteGatewayPairingStore implements GatewayPairingStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    migrateSqlite(db);
  }

  open(codeSha256: string, expiresAt: number): void {
    this.db
      .query(
        "INSERT INTO gateway_pairing_code (one, code_sha256, expires_at, wrong) VALUES (1, ?, ?, 0) " +
          "ON CONFLICT(one) DO UPDATE SET code_sha256 = excluded.code_sha256, expires_at = excluded.expires_at, wrong = 0",
      )
      .run(codeSha256, expiresAt);
  }

  guess(codeSha256: string, maxWrong: number): PairingCodeGuess {
    return this.db.transaction((): PairingCodeGuess => {
      const row = this.db
        .query<GatewayPairingRow, []>("SELECT code_sha256, expires_at, wrong FROM gateway_pairing_code WHERE one = 1")
        .get();
      const { guess, next } = judgeGuess(row, codeSha256, maxWrong, this.now());
      if (next === "consumed") this.db.query("DELETE FROM gateway_pairing_code WHERE one = 1").run();
      else if (next) this.db.query("UPDATE gateway_pairing_code SET wrong = ? WHERE one = 1").run(next.wrong);
      return guess;
    }).immediate();
  }
}
