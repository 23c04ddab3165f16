import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeWorkspace, manifest, toolModule, writePlugin, writeToolPlugin, type TestWorkspace } from "./helpers.ts";

const MAIN = resolve(import.meta.dir, "../../../src/cli/main.ts");

async function prx(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, PRX_LOG: "error" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

let t: TestWorkspace;
beforeAll(async () => {
  t = makeWorkspace();
  await writeToolPlugin(t.workspace, "echo", "from-echo", { extra: "homepage = \"https://example.org\"" });
  await writeToolPlugin(t.workspace, "net", "x", { required: ["http-outbound"] });
  writeFileSync(t.workspace.configPath, `[plugins.net]\nenabled = true\n`);
});
afterAll(() => t.cleanup());

describe("prx plugins (real WASM engine, subprocess)", () => {
  test("list --json and info", async () => {
    const list = await prx("plugins", "list", "--json", "--workspace", t.workspace.root);
    expect(list.code).toBe(0);
    const body = JSON.parse(list.stdout) as { count: number; generation: number; plugins: { name: string; status: string; message: string | null }[] };
    expect(body.count).toBe(2);
    expect(body.generation).toBe(1);
    expect(body.plugins.map((p) => [p.name, p.status])).toEqual([
      ["echo", "active"],
      ["net", "error"],
    ]);
    const info = await prx("plugins", "info", "net", "-w", t.workspace.root);
    expect(info.code).toBe(1);
    expect(info.stdout).toContain('missing [http-outbound]');
    expect(info.stdout).toContain("grant = [");
  });

  test("table list, reload and unknown names", async () => {
    const table = await prx("plugins", "list", "-w", t.workspace.root);
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+VERSION\s+KIND\s+STATUS\s+CAPABILITIES\s+MESSAGE$/);
    expect(table.stdout).toContain("tool:echo_tool");
    const reload = await prx("plugins", "reload", "echo", "--json", "-w", t.workspace.root);
    expect(reload.code).toBe(0);
    expect(JSON.parse(reload.stdout)).toMatchObject({ success: true, generation: 2, plugin: { name: "echo", status: "active" } });
    const missing = await prx("plugins", "reload", "ghost", "-w", t.workspace.root);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no plugin named "ghost"');
  });

  test("validate <dir>: loads it, reports warnings, grants to add and that max_fuel is enforced", async () => {
    const dir = writePlugin(
      t.workspace,
      "fuel",
      manifest({ name: "fuel", tools: ["fuel_tool"], required: ["http-outbound"], extra: "colour = \"red\"" }) + "\n[resources]\nmax_fuel = 1000\n",
      await toolModule({ tool: "fuel_tool", output: "f" }),
    );
    const ok = await prx("plugins", "validate", dir, "-w", t.workspace.root);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(": valid");
    expect(ok.stdout).toContain("tool spec: fuel_tool");
    expect(ok.stdout).toContain('"plugin.colour": unknown key');
    expect(ok.stdout).toContain('[plugins.fuel] grant = ["http-outbound"]');
    expect(ok.stdout).toContain("fuel: max_fuel = 1000 is enforced");
    writeFileSync(join(dir, "plugin.wasm"), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0xff]));
    const bad = await prx("plugins", "validate", dir, "--json", "-w", t.workspace.root);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout) as { valid: boolean; plugin: { status: string; message: string } };
    expect(report.valid).toBe(false);
    expect(report.plugin.status).toBe("error");
  });
});
