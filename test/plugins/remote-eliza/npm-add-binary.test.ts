/**
 * `prx plugins add|update|remove` through the built binary against the real npm registry: the binary installs
 * @elizaos/plugin-starter 1.7.2 with the Bun inside it (no bun or npm needed beside it), keeps the lockfile, checks
 * the folder, and the workspace's running gateway loads it; update reloads it; remove unloads it. A package that
 * does not exist leaves no folder behind.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runPrx, startGatewayBinary, tempWorkspace } from "../../helpers/binary.ts";
import { STARTER_VERSION } from "./npm-starter.ts";

setDefaultTimeout(180_000);

const ws = tempWorkspace("", { prefix: "prx-eliza-plugins-add-" });
let gateway: { url: string; token: string; proc: ReturnType<typeof Bun.spawn> } | undefined;
let registry: string | null = null;

beforeAll(async () => {
  await ensureBinary();
  // the registry must answer for this test to mean anything; without it the test says why it did not run
  registry = await fetch("https://registry.npmjs.org/@elizaos%2fplugin-starter", { signal: AbortSignal.timeout(15_000) }).then(
    (r) => (r.ok ? null : `the npm registry answered ${r.status}`),
    (e: Error) => `the npm registry is unreachable: ${e.message}`,
  );
  const created = await runPrx(["gateway", "token", "create", "-w", ws.dir], { env: { PRX_LOG: "error" } });
  const { proc, url } = await startGatewayBinary(ws.dir, { PRX_LOG: "error" }, "listening");
  gateway = { url, token: created.stdout.trim(), proc };
}, 120_000);

afterAll(async () => {
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  ws.cleanup();
});

const prx = (args: string[]) => runPrx([...args, "-w", ws.dir, "--url", gateway!.url], { env: { PRX_LOG: "error" }, timeoutMs: 170_000 });
const listed = async () => {
  const response = await fetch(`${gateway!.url}/api/plugins`, { headers: { authorization: `Bearer ${gateway!.token}` } });
  return ((await response.json()) as { plugins: Array<{ name: string; status: string; version: string | null }> }).plugins;
};

describe("prx plugins add|update|remove (binary, npm registry)", () => {
  test("add installs with the Bun inside prx, keeps the lockfile, and the running gateway loads it; update and remove follow", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const added = await prx(["plugins", "add", `@elizaos/plugin-starter@${STARTER_VERSION}`]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`added @elizaos/plugin-starter ${STARTER_VERSION} as plugins/starter (tools: HELLO_WORLD)`);
    expect(added.stdout).toContain("the running gateway reloaded");
    const dir = join(ws.dir, "plugins", "starter");
    expect(existsSync(join(dir, "bun.lock"))).toBe(true);
    expect(existsSync(join(dir, "node_modules", "@elizaos", "plugin-starter", "package.json"))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))).toMatchObject({
      dependencies: { "@elizaos/plugin-starter": STARTER_VERSION },
      prx: { package: "@elizaos/plugin-starter", transport: "worker" },
    });
    expect(readFileSync(join(dir, "plugin.toml"), "utf8")).toContain('runtime = "remote"');
    expect(await listed()).toContainEqual(expect.objectContaining({ name: "starter", status: "active", version: STARTER_VERSION }));

    const again = await prx(["plugins", "add", "@elizaos/plugin-starter"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("plugins/starter already exists");

    const updated = await prx(["plugins", "update", "starter", STARTER_VERSION]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain(`updated @elizaos/plugin-starter ${STARTER_VERSION} as plugins/starter`);

    const removed = await prx(["plugins", "remove", "starter"]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect((await listed()).some((p) => p.name === "starter")).toBe(false);
  });

  test("a package the registry does not have fails naming it and leaves no folder", async () => {
    if (registry) throw new Error(`cannot run here: ${registry}`);
    const failed = await prx(["plugins", "add", "@elizaos/plugin-prx-does-not-exist-0c1d"]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("@elizaos/plugin-prx-does-not-exist-0c1d");
    expect(existsSync(join(ws.dir, "plugins", "prx-does-not-exist-0c1d"))).toBe(false);
  });
});
