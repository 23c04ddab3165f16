/**
 * `prx gateway` (the binary) as it starts: a start that fails exits 1 naming why, every /health answer reaches the
 * access log with its request id, and a signal right after the listening line stops the gateway cleanly.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { startGatewayBinary, runPrx, tempWorkspace } from "../helpers/binary.ts";

setDefaultTimeout(60_000);

const OFFLINE = 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n';

describe("prx gateway (binary)", () => {
  test("a start that fails exits 1 with the error; /health answers reach the access log", async () => {
    const ws = tempWorkspace(`${OFFLINE}[gateway]\nmodel_aliases = { "gpt-4o" = "nowhere" }\n`);
    try {
      const run = await runPrx(["gateway", "--port", "0", "-w", ws.dir], { env: { HOME: ws.dir } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("nowhere");
    } finally {
      ws.cleanup();
    }
    const ok = tempWorkspace(OFFLINE);
    try {
      const { proc, url, stderr } = await startGatewayBinary(ok.dir, {}, "listening");
      const health = await fetch(`${url}/health`, { headers: { "x-request-id": "first-check" } });
      expect(health.status).toBe(200);
      // the access log's line for that request
      const logged = await stderr.line('"first-check"', { timeoutMs: 20_000 });
      proc.kill("SIGTERM");
      await proc.exited;
      expect(logged).toMatch(/GET \/health 200 .*"id":"first-check"/);
    } finally {
      ok.cleanup();
    }
  });

  test("SIGTERM right after the listening line stops the gateway cleanly", async () => {
    const ws = tempWorkspace(OFFLINE);
    try {
      const { proc } = await startGatewayBinary(ws.dir, {}, "listening");
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(proc.signalCode).toBeNull();
    } finally {
      ws.cleanup();
    }
  });
});
