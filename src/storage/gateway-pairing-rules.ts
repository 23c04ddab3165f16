import { constantTimeEqual } from "../core/constant-time.ts";
import type { PairingCodeGuess } from "./types.ts";

export interface GatewayPairingRow {
  code_sha256: string;
  expires_at: number | string;
  wrong: number | string;
}

/** What a guess does to the stored code: its answer, and the row's next state ("consumed": delete it). */
export function judgeGuess(
  row: GatewayPairingRow | null,
  codeSha256: string,
  maxWrong: number,
  now: number,
): { guess: PairingCodeGuess; next: "consumed" | { wrong: number } | null } {
  if (!row || now >= Number(row.expires_at)) return { guess: { outcome: "closed" }, next: null };
  const wrong = Number(row.wrong);
  if (wrong > maxWrong) return { guess: { outcome: "burned" }, next: null };
  if (constantTimeEqual(codeSha256, row.code_sha256)) return { guess: { outcome: "ok" }, next: "consumed" };
  const guess: PairingCodeGuess = wrong + 1 > maxWrong ? { outcome: "burned" } : { outcome: "wrong", left: maxWrong - wrong - 1 };
  return { guess, next: { wrong: wrong + 1 } };
}
