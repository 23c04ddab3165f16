import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runPrx, tempWorkspace } from "../../helpers/binary.ts";
import { manifest, toolModule } from "../runtime/helpers.ts";

const ws = tempWorkspace(undefined, { prefix: "prx-lazy-wasm-cli-" });
afterAll(() => ws.cleanup());

test("prx plugins list: a WASM plugin runs at its first load and is idle (not started) at the next", async () => {
  const dir = join(ws.dir, "plugins", "lazy-tool");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.toml"), manifest({ name: "lazy-tool", tools: ["lazy_tool"], wasm: "plugin.wasm" }));
  writeFileSync(join(dir, "plugin.wasm"), await toolModule({ tool: "lazy_tool", output: "hi" }));
  writeFileSync(join(ws.dir, "config.toml"), 'default_provider = "offline"\n[memory]\nbackend = "none"\n');
  const list = () => runPrx(["plugins", "list", "-w", ws.dir, "--json"], { env: { HOME: ws.dir } });
  const state = (stdout: string) => (JSON.parse(stdout) as { plugins: { name: string; status: string; run_state: string }[] }).plugins[0];
  const first = await list();
  expect(first.code).toBe(0);
  expect(state(first.stdout)).toMatchObject({ name: "lazy-tool", status: "active", run_state: "running" });
  const second = await list();
  expect(state(second.stdout)).toMatchObject({ name: "lazy-tool", status: "active", run_state: "idle" });
  const table = await runPrx(["plugins", "list", "-w", ws.dir], { env: { HOME: ws.dir } });
  expect(table.stdout).toContain("active, idle (not started)");
});
