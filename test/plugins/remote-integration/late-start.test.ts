/** A remote plugin that never finishes init does not hold the host's start or its turns. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI } from "../../fakes/openai-server.ts";
import { fakeConfig, openHost, workspaceWith, type TestWorkspace } from "./workspace.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function sleepyPlugin(ws: TestWorkspace): void {
  const dir = join(ws.pluginsDir, "sleepy");
  mkdirSync(dir);
  writeFileSync(
    join(dir, "plugin.toml"),
    '[plugin]\nname = "sleepy"\nversion = "0.1.0"\nruntime = "remote"\n\n[remote]\nentry = "worker.ts"\nready_timeout_ms = 120000\n',
  );
  writeFileSync(join(dir, "worker.ts"), 'export default { name: "sleepy", init: () => new Promise(() => {}) };\n');
}

test("the host opens and a turn runs while a plugin is still in init; the plugin is listed as starting", async () => {
  const fake = startFakeOpenAI();
  cleanups.push(() => fake.stop());
  const ws = workspaceWith([], fakeConfig(fake.url));
  cleanups.push(ws.cleanup);
  sleepyPlugin(ws);
  const { host, services } = await openHost(ws.root);
  cleanups.push(() => host.close());
  expect(services.runtime.current().plugin("sleepy")!.state).toBe("starting");
  const result = await host.runTurn({ sessionId: "s1", channel: "test", text: "hello" });
  expect(result.text).toBe("echo: hello");
  expect(services.runtime.current().plugin("sleepy")!.state).toBe("starting");
});

test("closing the host stops a plugin still in init: its subprocess does not outlive the host", async () => {
  const ws = workspaceWith([], "");
  cleanups.push(ws.cleanup);
  sleepyPlugin(ws);
  const manifest = join(ws.pluginsDir, "sleepy", "plugin.toml");
  writeFileSync(manifest, `${await Bun.file(manifest).text()}transport = "process"
`);
  const { host, services } = await openHost(ws.root);
  expect(services.runtime.current().plugin("sleepy")!.state).toBe("starting");
  const children = () => childPids(process.pid);
  expect(children().length).toBeGreaterThan(0);
  await host.close();
  for (let i = 0; i < 200 && children().length > 0; i++) await Bun.sleep(10);
  expect(children()).toEqual([]);
});

/** Live (not zombie) children of a process, from /proc. */
function childPids(parent: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent && fields[0] !== "Z") out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}
