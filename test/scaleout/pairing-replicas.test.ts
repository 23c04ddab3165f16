/**
 * The pairing code's budget of wrong guesses across replicas: two `prx gateway` replicas of the built binary on one
 * PostgreSQL schema and one Redis prefix, with no token, so each prints a code at start (the later one replaces the
 * earlier). Wrong guesses alternating replicas and loopback addresses burn the code for both; `prx gateway pair-code`
 * prints one that either replica accepts.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { PAIRING_CODE_MAX_WRONG, PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { pairFrom, wrongPairingCode } from "../helpers/pair-from.ts";
import { removeReplicas, replicaWorkspace, sharedConfig, startReplica, type Replica } from "../helpers/replicas.ts";
import { testNeeding, TEST_DATABASE_URL, uniquePrefix, uniqueSchema } from "../helpers/servers.ts";
import { waitFor } from "../helpers/wait.ts";

setDefaultTimeout(60_000);

const schema = uniqueSchema("pairing");
const prefix = uniquePrefix("pairing");
const testWithServers = await testNeeding("postgres", "redis");
const up = testWithServers === test;
let fake: FakeServer | undefined;
const replicas: Replica[] = [];

/** The code a replica printed at start. */
async function printedCode(replica: Replica): Promise<string> {
  await waitFor(() => replica.stdout.some((line) => line.startsWith("prx gateway pairing code: ")), `pairing code of ${replica.url}`);
  return /pairing code: (\S+)/.exec(replica.stdout.join("\n"))![1]!;
}

beforeAll(async () => {
  if (!up) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  const config = sharedConfig(fake.url, schema, prefix);
  // one after the other: both migrate the schema, and the code of the later start is the live one
  for (let i = 0; i < 2; i++) {
    replicas.push(await startReplica(replicaWorkspace(config)));
    await printedCode(replicas[i]!);
  }
}, 300_000);

afterAll(async () => {
  await removeReplicas(replicas, { up, schema, prefix });
  await fake?.stop();
});

describe("pairing across replicas", () => {
  testWithServers(`${PAIRING_CODE_MAX_WRONG + 1} wrong guesses spread over both replicas burn the code on both; a new code works on either`, async () => {
    const [a, b] = replicas as [Replica, Replica];
    const live = await printedCode(b);
    const addresses = Math.ceil((PAIRING_CODE_MAX_WRONG + 1) / (PAIRING_MAX_FAILURES - 1));
    const statuses: number[] = [];
    for (let i = 0; i < PAIRING_CODE_MAX_WRONG; i++)
      statuses.push((await pairFrom((i % 2 ? a : b).url, wrongPairingCode(live), `127.3.${i % addresses}.1`)).status);
    expect(statuses).toEqual(Array(PAIRING_CODE_MAX_WRONG).fill(401));
    expect((await pairFrom(a.url, wrongPairingCode(live), "127.3.200.1")).status).toBe(403);
    for (const replica of [a, b]) {
      const refused = await pairFrom(replica.url, live, "127.3.201.1");
      expect(refused.status).toBe(403);
      expect(refused.body.error?.hint).toContain("`prx gateway pair-code`");
    }

    const printed = await runPrx(["gateway", "pair-code", "-w", a.dir], { env: { DATABASE_URL: TEST_DATABASE_URL } });
    expect(printed.code).toBe(0);
    const fresh = printed.stdout.trim();
    const paired = await pairFrom(b.url, fresh, "127.3.202.1");
    expect(paired.status).toBe(200);
    expect(paired.body.token).toStartWith("prx_");
    expect((await pairFrom(a.url, fresh, "127.3.203.1")).status).toBe(403);
  });
});
