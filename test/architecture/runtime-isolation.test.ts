/** Two workspaces in one process: two plugin runtimes that share no state. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { captureLogs, openHost, type OpenedHost } from "../plugins/capabilities/helpers.ts";
import { ctx } from "../plugins/runtime/helpers.ts";
import { waitFor } from "../helpers/wait.ts";

const REPO = resolve(import.meta.dir, "../..");
const roots: string[] = [];
const hosts: OpenedHost[] = [];

async function workspace(): Promise<OpenedHost> {
  const root = mkdtempSync(join(tmpdir(), "prx-isolation-"));
  roots.push(root);
  mkdirSync(join(root, "plugins"));
  cpSync(join(REPO, "plugins/example-remote"), join(root, "plugins/example-remote"), { recursive: true });
  cpSync(join(REPO, "test/fixtures/test-wasm/echo-tool"), join(root, "plugins/echo-tool"), { recursive: true });
  writeFileSync(join(root, "config.toml"), "");
  const opened = await openHost(root);
  hosts.push(opened);
  return opened;
}

beforeAll(() => void captureLogs());
afterAll(async () => {
  for (const opened of hosts) await opened.host.close();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

test("runtimes of two workspaces share no bus, services, bindings, status, generation or plugin state", async () => {
  const [a, b] = [await workspace(), await workspace()];
  const [ra, rb] = [a.services.runtime, b.services.runtime];
  // a plugin that joins late (a slow start on a loaded machine) adds a generation of its own: wait for those first
  const settled = (r: typeof ra) => r.current().plugins.every((plugin) => plugin.state !== "starting");
  await waitFor(() => settled(ra) && settled(rb), "plugins still starting in either workspace", 20_000);
  expect(ra).not.toBe(rb);
  expect(ra.host.events).not.toBe(rb.host.events);
  expect(a.services).not.toBe(b.services);
  expect(ra.status).not.toBe(rb.status);
  await ra.tools.get("REMEMBER_NOTE")!.execute({ text: "only in a" }, ctx());
  const notes = (r: typeof ra) => r.current().remote("example-remote")!.handle.callService("NOTES", "count", []);
  expect([await notes(ra), await notes(rb)]).toEqual([1, 0]);
  expect(ra.host.remote?.bindings).toBeDefined();
  expect(ra.host.remote?.bindings).not.toBe(rb.host.remote?.bindings);
  expect(ra.status.get("example-remote", "tool", "REMEMBER_NOTE")?.invocations).toBe(1);
  expect(rb.status.get("example-remote", "tool", "REMEMBER_NOTE")?.invocations ?? 0).toBe(0);
  const [aBefore, bBefore] = [ra.current().number, rb.current().number];
  await ra.reload("echo-tool");
  expect([ra.current().number, rb.current().number]).toEqual([aBefore + 1, bBefore]);
  await a.host.close();
  hosts.splice(hosts.indexOf(a), 1);
  expect(rb.started).toBe(true);
  expect(await rb.tools.get("echo_upper")!.execute({ text: "b" }, ctx())).toMatchObject({ success: true });
}, 30_000); // two workspaces start a remote plugin and a WASM component each: seconds on a loaded machine
