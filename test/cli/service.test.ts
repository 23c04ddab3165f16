/**
 * `prx service` through the built binary: the unit it writes for this workspace's gateway is one systemd accepts
 * (`systemd-analyze verify`), and uninstall removes it; the launchd agent for macOS is checked as text.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GATEWAY_SERVICE_ENV, launchdPlist, serviceName, systemdUnit } from "../../src/cli/service.ts";
import { plainWorkspacePaths } from "../../src/core/workspace-paths.ts";
import { BINARY, ensureBinary, runPrx } from "../helpers/binary.ts";

setDefaultTimeout(60_000);
const dirs: string[] = [];
beforeAll(() => ensureBinary(), 300_000);
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function scratch(): { config: string; workspace: string } {
  const dir = mkdtempSync(join(tmpdir(), "prx-service-"));
  dirs.push(dir);
  return { config: join(dir, "config home"), workspace: join(dir, "my ws") };
}

describe("systemd", () => {
  const verify = Bun.which("systemd-analyze");

  test.skipIf(!verify && !process.env.CI)("install --no-start writes a unit systemd verifies; status and uninstall find it", async () => {
    const { config, workspace } = scratch();
    const env = { XDG_CONFIG_HOME: config };
    const installed = await runPrx(["service", "install", "--no-start", "-w", workspace], { env });
    expect(installed.code).toBe(0);
    const units = join(config, "systemd", "user");
    const [unit] = readdirSync(units);
    expect(unit).toMatch(/^prx-gateway-[0-9a-f]{8}\.service$/);
    const text = readFileSync(join(units, unit!), "utf8");
    expect(text).toContain(`ExecStart=${BINARY} gateway -w "${workspace}"`);
    const checked = Bun.spawnSync([verify!, "verify", join(units, unit!)], { stdout: "pipe", stderr: "pipe" });
    expect(`${checked.stdout}${checked.stderr}`.trim()).toBe("");
    expect(checked.exitCode).toBe(0);
    // the same name for the same workspace: install again replaces it
    expect((await runPrx(["service", "install", "--no-start", "-w", workspace], { env })).code).toBe(0);
    expect(readdirSync(units)).toEqual([unit!]);
    const removed = await runPrx(["service", "uninstall", "-w", workspace], { env });
    expect(removed.code).toBe(0);
    expect(existsSync(join(units, unit!))).toBe(false);
    const status = await runPrx(["service", "status", "-w", workspace], { env });
    expect(status.code).toBe(1);
    expect(status.stdout).toContain("not installed");
  });

  test.skipIf(!verify && !process.env.CI)("a unit systemd would refuse is caught by the same check (the check is real)", () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-service-bad-"));
    dirs.push(dir);
    const bad = join(dir, "bad.service");
    Bun.write(bad, systemdUnit(plainWorkspacePaths(dir), ["/nonexistent/prx"]));
    const checked = Bun.spawnSync([verify!, "verify", bad], { stdout: "pipe", stderr: "pipe" });
    expect(`${checked.stdout}${checked.stderr}`).toContain("/nonexistent/prx");
  });
});

test("the launchd agent runs the gateway of the workspace at login and again when it fails", () => {
  const workspace = plainWorkspacePaths("/Users/ada/prx & co");
  const plist = launchdPlist(workspace, ["/usr/local/bin/prx"], `dev.prx.${serviceName(workspace)}`);
  expect(plist).toContain("<string>/usr/local/bin/prx</string>\n    <string>gateway</string>\n    <string>-w</string>\n    <string>/Users/ada/prx &amp; co</string>");
  expect(plist).toContain("<key>RunAtLoad</key>\n  <true/>");
  expect(plist).toContain("<key>SuccessfulExit</key>\n    <false/>");
});

test("the service starts the gateway with the allocator keeping its holes, a setting this binary's allocator reads", () => {
  const workspace = plainWorkspacePaths("/srv/prx");
  expect(GATEWAY_SERVICE_ENV).toEqual({ MIMALLOC_PURGE_HOLES: "0" });
  const unit = systemdUnit(workspace, ["/usr/local/bin/prx"]);
  // before EnvironmentFile: systemd lets the file's assignment win, so secrets.env can override it
  expect(unit).toContain("Environment=MIMALLOC_PURGE_HOLES=0\nEnvironmentFile=-/srv/prx/secrets.env");
  const plist = launchdPlist(workspace, ["/usr/local/bin/prx"], `dev.prx.${serviceName(workspace)}`);
  expect(plist).toContain("<key>EnvironmentVariables</key>\n  <dict>\n    <key>MIMALLOC_PURGE_HOLES</key>\n    <string>0</string>\n  </dict>");
  const options = (env: Record<string, string>) =>
    Bun.spawnSync([BINARY, "--version"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MIMALLOC_VERBOSE: "1", ...env }, stdout: "pipe", stderr: "pipe" });
  const given = options({ ...GATEWAY_SERVICE_ENV });
  expect(given.exitCode).toBe(0);
  expect(`${given.stdout}${given.stderr}`).toContain("option 'purge_holes': 0");
  expect(`${options({}).stderr}${options({}).stdout}`).toContain("option 'purge_holes': 1");
});
