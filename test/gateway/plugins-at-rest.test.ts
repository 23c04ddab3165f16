import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { AT_REST_DETAIL } from "../../src/gateway/plugin-health.ts";
import { startGatewayBinary, tempWorkspace } from "../helpers/binary.ts";

setDefaultTimeout(60_000);

/**
 * `prx gateway` in a workspace with nothing for the plugin runtime to load (no plugins/ entry, no hooks.json, no eager
 * MCP server, a local bus) starts it with the first turn or plugin request; with a plugins/ entry it starts at once.
 */
const CONFIG = 'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n[gateway]\nrequire_pairing = false\n';

interface Health {
  checks: Record<string, { ok: boolean; detail?: string }>;
}

async function gateway(dir: string) {
  const { proc, url } = await startGatewayBinary(dir, {}, "listening");
  /** The plugins check of /health once `until` accepts its detail. */
  const pluginsCheck = async (until: (detail: string) => boolean) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const health = (await (await fetch(`${url}/health`)).json()) as Health;
      const detail = health.checks.plugins?.detail;
      if (detail !== undefined && until(detail)) return detail;
      if (Date.now() > deadline) throw new Error(`plugins check still ${JSON.stringify(health.checks.plugins)}`);
      await Bun.sleep(20);
    }
  };
  return { proc, url, pluginsCheck };
}

describe("the gateway's plugin runtime", () => {
  test("with nothing to load it stays at rest (ready) until the first turn, which starts it", async () => {
    const ws = tempWorkspace(CONFIG);
    const { proc, url, pluginsCheck } = await gateway(ws.dir);
    try {
      expect(await pluginsCheck(() => true)).toBe(AT_REST_DETAIL);
      // well past the delay after which a gateway with plugins loads them
      await Bun.sleep(300);
      expect(await pluginsCheck(() => true)).toBe(AT_REST_DETAIL);
      const reply = await fetch(`${url}/api/sessions/rest/message`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "hello" }),
      });
      expect(reply.status).toBe(200);
      expect(await pluginsCheck(() => true)).toBe("generation 1: 0 loaded, 0 in error");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      ws.cleanup();
    }
  });

  test("with an entry in plugins/ it starts right after listening, without a request", async () => {
    const ws = tempWorkspace(CONFIG);
    // a directory without plugin.toml: refused, which is enough to show the runtime ran
    mkdirSync(join(ws.dir, "plugins", "unfinished"), { recursive: true });
    const { proc, pluginsCheck } = await gateway(ws.dir);
    try {
      expect(await pluginsCheck((detail) => detail.startsWith("generation"))).toBe("generation 1: 0 loaded, 1 in error");
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      ws.cleanup();
    }
  });
});
