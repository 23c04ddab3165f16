/**
 * The pairing code's budget of wrong guesses holds whatever source address they come from: wrong guesses spread over
 * several loopback addresses (each below its own lockout) burn the code, the right code is then refused, and
 * `prx gateway pair-code` prints a new code the running gateway accepts. The compiled binary, loopback only.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { PAIRING_CODE_MAX_WRONG, PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { ensureBinary, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { pairFrom, wrongPairingCode } from "../helpers/pair-from.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

/** Addresses enough that none of them reaches its own lockout within the budget. */
const ADDRESSES = Math.ceil((PAIRING_CODE_MAX_WRONG + 1) / (PAIRING_MAX_FAILURES - 1));

let ws: { dir: string; cleanup(): void };
let gateway: RunningGateway;
beforeAll(async () => {
  await ensureBinary();
  ws = tempWorkspace("");
  gateway = await startGatewayBinary(ws.dir);
}, 300_000);
afterAll(async () => {
  if (gateway.proc.exitCode === null) gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  ws.cleanup();
});

const pair = (code: string, from: string) => pairFrom(gateway.url, code, from);

/** The i-th wrong guess comes from the (i mod ADDRESSES)-th address. */
async function guessWrong(count: number, code: string, net: number): Promise<number[]> {
  const wrong = wrongPairingCode(code);
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await pair(wrong, `127.${net}.${i % ADDRESSES}.1`)).status);
  return statuses;
}

async function newCode(): Promise<string> {
  const printed = await runPrx(["gateway", "pair-code", "-w", ws.dir]);
  expect(printed.code).toBe(0);
  expect(printed.stderr).toContain("any earlier code no longer works");
  return printed.stdout.trim();
}

describe("pairing code budget", () => {
  test(`${PAIRING_CODE_MAX_WRONG + 1} wrong guesses from ${ADDRESSES} addresses burn the code; \`prx gateway pair-code\` prints one that works`, async () => {
    const first = /pairing code: (\S+)/.exec(gateway.lines.join("\n"))?.[1];
    expect(first).toBeDefined();
    // up to the budget every wrong guess is just wrong (no address reached its lockout)
    expect(await guessWrong(PAIRING_CODE_MAX_WRONG, first!, 1)).toEqual(Array(PAIRING_CODE_MAX_WRONG).fill(401));
    const burning = await pair(wrongPairingCode(first!), "127.1.200.1");
    expect(burning.status).toBe(403);
    expect(burning.body.error?.message).toContain("pairing code burned");
    // the right code, from an address that never guessed, is refused, and the answer says how to get a new one
    const refused = await pair(first!, "127.1.201.1");
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain(`more than ${PAIRING_CODE_MAX_WRONG} wrong guesses`);
    expect(refused.body.error?.hint).toContain("`prx gateway pair-code` prints a new code");

    // the operator's new code works for the running gateway, once
    const second = await newCode();
    expect(second).toMatch(/^[A-Z2-9]{8}$/);
    expect(second).not.toBe(first);
    const paired = await pair(second.toLowerCase(), "127.1.202.1");
    expect(paired.status).toBe(200);
    expect(paired.body.token).toStartWith("prx_");
    expect((await pair(second, "127.1.203.1")).status).toBe(403);
  });

  test(`at the budget: after ${PAIRING_CODE_MAX_WRONG} wrong guesses from ${ADDRESSES} addresses the right code still pairs`, async () => {
    const printed = await runPrx(["gateway", "pair-code", "--json", "-w", ws.dir]);
    expect(printed.code).toBe(0);
    const { code, expires_at } = JSON.parse(printed.stdout) as { code: string; expires_at: string };
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    expect(await guessWrong(PAIRING_CODE_MAX_WRONG, code, 2)).toEqual(Array(PAIRING_CODE_MAX_WRONG).fill(401));
    const paired = await pair(code, "127.2.200.1");
    expect(paired.status).toBe(200);
    expect(paired.body.token).toStartWith("prx_");
  });

  test("`prx gateway pair-code` refuses when pairing is off, saying why", async () => {
    const off = tempWorkspace("[gateway]\nrequire_pairing = false\n");
    try {
      const result = await runPrx(["gateway", "pair-code", "-w", off.dir]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("pairing is disabled");
      expect(result.stdout).toBe("");
    } finally {
      off.cleanup();
    }
  });
});
