/**
 * Getting a token when pairing is not an option: a restart with tokens present says how, and a lockout of the local
 * address (any local process can cause one) never reaches `prx gateway token create`, which works offline against
 * the workspace while the gateway runs. The compiled binary and a listening gateway on one workspace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { json } from "./harness.ts";

let host: AgentHost;
let ws: { dir: string; cleanup(): void };
beforeAll(async () => {
  await ensureBinary();
  ws = tempWorkspace("");
  host = await openAgentHost({ workspace: ws.dir });
}, 300_000);
afterAll(async () => {
  await host.close();
  ws.cleanup();
});

async function start(): Promise<{ gateway: GatewayServer; printed: string[] }> {
  const printed: string[] = [];
  const gateway = await startGateway({
    host,
    port: 0,
    handleSignals: false,
    version: "test",
    print: (line) => printed.push(line),
    accessLog: () => {},
  });
  return { gateway, printed };
}

describe("pairing hints", () => {
  test("a local lockout leaves `prx gateway token create` working; a restart with tokens says how to get one", async () => {
    const { gateway, printed } = await start();
    try {
      expect(printed[1]).toMatch(/^prx gateway pairing code: [A-Z2-9]{8} /);
      const code = printed[1]!.match(/: ([A-Z2-9]{8}) /)![1]!;
      const wrong = code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH";
      const pair = (value: string) => fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": value } });
      for (let i = 1; i < PAIRING_MAX_FAILURES; i++) expect((await pair(wrong)).status).toBe(401);
      const locked = await pair(wrong);
      expect(locked.status).toBe(429);
      expect((await json(locked)).error.hint).toContain("`prx gateway token create` prints a token at once");
      // Even the right code is refused from this address now: the owner's way in is the CLI.
      expect((await pair(code)).status).toBe(429);

      const created = await runPrx(["gateway", "token", "create", "--workspace", ws.dir, "--name", "owner"]);
      expect(created.code).toBe(0);
      const token = created.stdout.trim();
      expect(token).toStartWith("prx_");
      const status = await fetch(`${gateway.url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
      expect(status.status).toBe(200);
    } finally {
      await gateway.stop();
    }

    const restarted = await start();
    try {
      expect(restarted.printed.some((line) => line.includes("pairing code"))).toBe(false);
      expect(restarted.printed).toContain(
        "prx gateway: pairing is closed (1 token exists); to get a token on this machine run `prx gateway token create` " +
          "(it works while the gateway runs; `prx gateway token list` shows the others)",
      );
    } finally {
      await restarted.gateway.stop();
    }
  });
});
