/** Carry-over with the real loaders: a remote plugin subprocess and a WASM sandbox survive the other's reload. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { captureLogs, openHost, type OpenedHost } from "../capabilities/helpers.ts";
import { ctx } from "./helpers.ts";

const REPO = resolve(import.meta.dir, "../../..");
let root: string;
let opened: OpenedHost;

beforeAll(async () => {
  captureLogs();
  root = mkdtempSync(join(tmpdir(), "prx-carry-"));
  mkdirSync(join(root, "plugins"));
  cpSync(join(REPO, "plugins/example-remote"), join(root, "plugins/example-remote"), { recursive: true });
  const manifest = join(root, "plugins/example-remote/plugin.toml");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace('transport = "worker"', 'transport = "process"'));
  cpSync(join(REPO, "test/fixtures/test-wasm/echo-tool"), join(root, "plugins/echo-tool"), { recursive: true });
  writeFileSync(join(root, "config.toml"), "");
  opened = await openHost(root);
}, 60_000);

afterAll(async () => {
  await opened.host.close();
  rmSync(root, { recursive: true, force: true });
});

const runtime = () => opened.services.runtime;
const remote = () => runtime().current().remote("example-remote")!.handle;
const notes = async () => (await remote().callService("NOTES", "count", [])) as number;

test("the remote worker keeps its pid and its service state across the WASM plugin's reload, and back", async () => {
  const remember = runtime().tools.get("REMEMBER_NOTE")!;
  expect((await remember.execute({ text: "milk is in the fridge" }, ctx())).success).toBe(true);
  expect(await notes()).toBe(1);
  const pid = remote().status().pid;
  expect(pid).toBeNumber();
  const sandbox = runtime().current().instance("echo-tool");

  await runtime().reload("echo-tool");
  expect(runtime().current().plugin("example-remote")!.outcome).toBe("carried_over");
  expect(remote().status().pid).toBe(pid);
  expect(await notes()).toBe(1);
  expect(runtime().current().instance("echo-tool")).not.toBe(sandbox);

  const rebuiltSandbox = runtime().current().instance("echo-tool");
  await runtime().reload("example-remote");
  await runtime().settled();
  expect(runtime().current().instance("echo-tool")).toBe(rebuiltSandbox);
  expect(runtime().current().plugin("echo-tool")!.outcome).toBe("carried_over");
  expect(remote().status().pid).not.toBe(pid);
  expect(await notes()).toBe(0);
  expect((await runtime().tools.get("echo_upper")!.execute({ text: "still here" }, ctx())).output).toBe('{"TEXT":"STILL HERE"}');
});
