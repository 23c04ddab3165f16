/**
 * A connection flood: slow bodies (`Content-Length: 100000`, one byte every 5 s) held open from several loopback
 * addresses, half of them without a token, opened over the first 5 s and each reopened 5 s after the gateway closed
 * it (every slot acts once per 5 s). Rows: what the gateway answered 401 or 503, what it cut at the body deadline
 * (408), how many connections it still held at the flood's end, and how soon after it a turn from a flooding address
 * answers.
 */
import { rawConnection, requestHead, type RawConnection } from "../../helpers/raw-http.ts";
import type { Scenario } from "./scenarios.ts";

const SLOTS = 4_000;
const ADDRESSES = 8;
const FLOOD_MS = 12_000;
const TRICKLE_MS = 5_000;
const RECOVERY_BOUND_MS = 30_000;
const DECLARED = 100_000;

const address = (i: number) => `127.0.0.${10 + (i % ADDRESSES)}`;

function turnHead(token: string | null, body: string, declared = Buffer.byteLength(body)): string {
  const headers: Record<string, string | number> = { Host: "localhost", "Content-Type": "application/json", "Content-Length": declared };
  if (token) headers.Authorization = `Bearer ${token}`;
  return requestHead("POST", "/api/sessions/flood/message", headers, body);
}

/** A whole turn from a flooding address, retried until it answers 200; ms from the flood's end. */
async function recovery(url: string, token: string): Promise<number> {
  const started = performance.now();
  const body = JSON.stringify({ message: "after the flood" });
  while (performance.now() - started < RECOVERY_BOUND_MS) {
    const connection = rawConnection(url, turnHead(token, body), address(0));
    const answer = await connection.response;
    connection.close();
    if (answer?.status === 200) return performance.now() - started;
    await Bun.sleep(10);
  }
  return NaN;
}

interface FloodCounts {
  opened: number;
  answered: number;
  cut: number;
  /** Connections open (the gateway had not closed them) when the flood ended. */
  held: number;
}

/** The flood itself, run in its own process so the /health prober's timings are the gateway's, not the attacker's. */
async function flood(url: string, token: string): Promise<FloodCounts> {
  const open = new Set<RawConnection>();
  const counts: FloodCounts = { opened: 0, answered: 0, cut: 0, held: 0 };
  let flooding = true;
  let end!: (nothing: null) => void;
  const ended = new Promise<null>((resolve) => (end = resolve));
  const slot = async (i: number) => {
    await Bun.sleep((i * TRICKLE_MS) / SLOTS);
    while (flooding) {
      const connection = rawConnection(url, turnHead(i % 2 ? token : null, "{", DECLARED), address(i));
      counts.opened += 1;
      open.add(connection);
      const trickle = setInterval(() => connection.write(" "), TRICKLE_MS);
      const answer = await Promise.race([connection.response, ended]);
      // an attacker keeps what the gateway keeps open
      if (answer) await Promise.race([connection.closed, ended]);
      clearInterval(trickle);
      connection.close();
      open.delete(connection);
      if (answer?.status === 401 || answer?.status === 503) counts.answered += 1;
      if (answer?.status === 408) counts.cut += 1;
      if (flooding) await Bun.sleep(TRICKLE_MS);
    }
  };
  const slots = Array.from({ length: SLOTS }, (_, i) => slot(i));
  await Bun.sleep(FLOOD_MS);
  flooding = false;
  end(null);
  counts.held = open.size;
  for (const connection of open) connection.close();
  await Promise.all(slots);
  return counts;
}

if (import.meta.main) {
  const [url = "", token = ""] = process.argv.slice(2);
  console.log(JSON.stringify(await flood(url, token)));
}

export const connectionFlood: Scenario = {
  name: `connection flood (${SLOTS} slow bodies from ${ADDRESSES} addresses, half without a token)`,
  plugin: { transport: "worker" },
  async attack({ gw }) {
    const child = Bun.spawn([process.execPath, import.meta.path, gw.url, gw.token], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(child.stdout).text();
    if ((await child.exited) !== 0) throw new Error(`the flood client failed (exit ${child.exitCode})`);
    const { opened, answered, cut, held } = JSON.parse(out) as FloodCounts;
    const recovered = await recovery(gw.url, gw.token);
    return {
      rows: [
        { name: "connections opened", value: opened, unit: "count", note: `${FLOOD_MS / 1000} s` },
        { name: "answered 401 (no token) or 503 (over a cap)", value: answered, unit: "count" },
        { name: "slow bodies cut at the deadline (408)", value: cut, unit: "count" },
        { name: "connections still open at the flood's end", value: held, unit: "count" },
        { name: "recovery: a turn from a flooding address", value: recovered, unit: "ms", target: { op: "<=", value: 1_000 } },
      ],
    };
  },
};
