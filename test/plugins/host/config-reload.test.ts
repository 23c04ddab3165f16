/** A grant added to config.toml while a host runs takes effect on the next reload (config is re-read per build). */
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost } from "../../../src/agent/index.ts";
import { pluginExtensions } from "../../../src/agent/plugin-extensions.ts";
import { listPlugins } from "../../../src/plugins/api.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-grant-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a missing grant, then granted in config.toml, then reload: the plugin becomes active", async () => {
  cpSync(join(import.meta.dir, "../../fixtures/test-wasm/http-tool"), join(dir, "plugins", "http-tool"), { recursive: true });
  writeFileSync(join(dir, "config.toml"), `default_provider = "offline"\n`);
  const host = await openAgentHost({ workspace: dir, extend: pluginExtensions });
  try {
    const runtime = host.plugins!.runtime;
    const before = listPlugins(runtime).plugins.find((p) => p.name === "http-tool")!;
    expect(before.status).toBe("error");
    expect(before.permissions.missing).toEqual(["http-outbound"]);

    writeFileSync(join(dir, "config.toml"), `default_provider = "offline"\n[plugins.http-tool]\ngrant = ["http-outbound"]\n`);
    const generation = await runtime.reload("http-tool");
    const after = listPlugins(runtime).plugins.find((p) => p.name === "http-tool")!;
    expect(generation).toBe(2);
    expect(after.status).toBe("active");
    expect(after.permissions.granted).toContain("http-outbound");

    writeFileSync(join(dir, "config.toml"), `default_provider = "offline"\n[plugins.http-tool]\ngrnt = []\n`);
    await expect(runtime.reload("http-tool")).rejects.toThrow(/unknown key "plugins.http-tool.grnt"/);
    expect(runtime.current().number).toBe(2);
  } finally {
    await host.close();
  }
});
