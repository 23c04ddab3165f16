import type { Replica } from "../helpers/replicas.ts";

/** The scale-out load of the bench tools: turns at concurrency 16 over 64 sessions, spread over the replicas in turn. */
export const SCALEOUT_CONCURRENCY = 16;
export const SCALEOUT_SESSIONS = 64;

/** `count` turns through the session API, each on the next replica; a turn answered with anything but 200 throws. */
export async function driveTurns(replicas: Replica[], token: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const n = next++;
      if (n >= count) return;
      const replica = replicas[n % replicas.length]!;
      const response = await fetch(`${replica.url}/api/sessions/load-${n % SCALEOUT_SESSIONS}/message`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ message: `turn ${n}` }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`turn ${n} on ${replica.url} (${replica.proc.pid}): ${response.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: SCALEOUT_CONCURRENCY }, worker));
}
