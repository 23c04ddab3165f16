/** Through the built binary: what an MCP stdio server starts (setsid, double fork) ends with `prx mcp list`. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runPrx, tempWorkspace } from "../helpers/binary.ts";
import { processGone } from "../plugins/hooks/helpers.ts";
import { FIXTURE } from "./helpers.ts";

const leftovers: number[] = [];
let ws: ReturnType<typeof tempWorkspace>;
beforeAll(async () => {
  await ensureBinary();
}, 300_000);
afterAll(() => {
  for (const pid of leftovers) if (!processGone(pid)) process.kill(pid, "SIGKILL");
  ws?.cleanup();
});

test("an MCP stdio server's setsid and double-forked children do not outlive prx mcp list", async () => {
  ws = tempWorkspace();
  const out = join(ws.dir, "escaped.pids");
  const script = [
    `setsid sleep 626 >/dev/null 2>&1 </dev/null & echo $! >> ${JSON.stringify(out)}`,
    `(sleep 627 >/dev/null 2>&1 </dev/null & echo $! >> ${JSON.stringify(out)}) &`,
    "sleep 0.1",
    `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FIXTURE)}`,
  ].join("\n");
  await Bun.write(
    join(ws.dir, "config.toml"),
    `[mcp.servers.fx]\ncommand = "/bin/sh"\nargs = ["-c", ${JSON.stringify(script)}]\ntools = ["echo"]\n`,
  );
  const listed = await runPrx(["mcp", "list", "--json", "-w", ws.dir], { env: { PRX_LOG: "error" } });
  const pids = readFileSync(out, "utf8").split("\n").filter(Boolean).map(Number);
  leftovers.push(...pids);
  expect(listed.code).toBe(0);
  expect(pids).toHaveLength(2);
  const end = Date.now() + 3_000;
  while (!pids.every(processGone) && Date.now() < end) await Bun.sleep(20);
  expect(pids.filter((pid) => !processGone(pid))).toEqual([]);
}, 60_000);
