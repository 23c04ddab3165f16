/** A running `prx gateway` (a real process of src/cli/main.ts) keeps logs/prx.log. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { LOG_FILE_NAME } from "../../src/core/log-file.ts";

const MAIN = resolve(import.meta.dir, "../../src/cli/main.ts");
const ws = mkdtempSync(join(tmpdir(), "prx-gw-log-"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** Read stdout until a line matches, returning the match; the rest is still read (the process keeps its pipe). */
async function waitForLine(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<RegExpMatchArray> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the gateway exited without printing ${pattern}: ${seen}`);
    seen += decoder.decode(value, { stream: true });
    const match = seen.match(pattern);
    if (match) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return match;
    }
  }
}

describe("gateway log file", () => {
  test("access lines and log records go to logs/prx.log (0600) as well as stderr", async () => {
    const proc = Bun.spawn([process.execPath, MAIN, "gateway", "--port", "0", "--workspace", ws], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, PRX_LOG: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const [, url] = await waitForLine(proc.stdout, /listening on (http:\/\/\S+)/);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect((await fetch(`${url}/api/status`)).status).toBe(401);
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await proc.exited).toBe(0);
    const stderr = await new Response(proc.stderr).text();
    const path = join(ws, "logs", LOG_FILE_NAME);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("[gateway.access] GET /health 200");
    expect(text).toContain("[gateway.access] GET /api/status 401");
    expect(text).toContain("received SIGTERM; shutting down");
    for (const line of text.trim().split("\n")) expect(stderr).toContain(line);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
