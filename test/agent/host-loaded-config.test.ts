import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost } from "../../src/agent/host.ts";
import { ConfigSchema } from "../../src/config/schema.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-host-loaded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a configuration the caller already read is used at open; reloads read config.toml again", async () => {
  const path = join(dir, "config.toml");
  writeFileSync(path, 'default_provider = "off"\ndefault_model = "from-file"\n[providers.off]\nkind = "offline"\n');
  const given = ConfigSchema.parse({ default_provider: "off", default_model: "given", providers: { off: { kind: "offline" } } });
  let reread: string | undefined;
  const host = await openAgentHost({
    workspace: dir,
    loaded: { config: given, path },
    extend: async (base) => {
      reread = (await base.readConfig()).default_model;
      return {};
    },
  });
  try {
    expect(host.config.default_model).toBe("given");
    expect(host.configPath).toBe(path);
    expect(reread).toBe("from-file");
  } finally {
    await host.close();
  }
});
