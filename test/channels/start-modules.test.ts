/**
 * What a channel process loads before it says "running" decides how soon it is connected (target in README,
 * Performance): the platform adapter, the channel's table of the configuration and the limits, nothing of the agent
 * host it opens after (agent, storage, memory, tools, providers, plugins, the runner and its stores). With the config
 * cache warm, not zod, smol-toml or the config schema either, nor the workspace module (node:fs), nor Telegram's zod
 * wire schemas (getMe is checked with their generated JSON Schema).
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeTelegram } from "../fakes/telegram-server.ts";
import { channelStartModules } from "../helpers/channel-start-modules.ts";
import type { StartFrom } from "../helpers/start-modules.ts";

setDefaultTimeout(60_000);

const HOST_SIDE = [
  /\/src\/(agent|memory|tools|providers|plugins|mcp|gateway)\//,
  /\/src\/storage\/(?!limits\.ts$)/,
  /\/src\/channels\/(runner|store|participant|messages|ipc)\.ts$/,
  /\/src\/channels\/telegram\/wire\.ts$/,
];
const CONFIG_VALIDATION = [/\/node_modules\/zod\//, /\/node_modules\/smol-toml\//, /\/src\/config\/(schema|loader|cache)\.ts$/, /\/src\/core\/workspace\.ts$/];

const tg = startFakeTelegram();
const dir = mkdtempSync(join(tmpdir(), "prx-channel-start-modules-"));
writeFileSync(
  join(dir, "config.toml"),
  'default_provider = "off"\ndefault_model = "m"\n[providers.off]\nkind = "offline"\n' +
    `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\ndm_policy = "open"\n`,
);
afterAll(async () => {
  await tg.stop();
  rmSync(dir, { recursive: true, force: true });
});

const matching = (loaded: string[], patterns: RegExp[]) => loaded.filter((m) => patterns.some((p) => p.test(m)));

describe.each(["source", "binary"] as StartFrom[])("from %s", (from) => {
  test("a channel process is connected before it loads anything of its agent host", async () => {
    // the first start writes the config cache the next one reads
    await channelStartModules(dir, "tg", { TG_TOKEN: tg.token }, from);
    const loaded = await channelStartModules(dir, "tg", { TG_TOKEN: tg.token }, from);
    expect(loaded.some((m) => m.endsWith("/src/channels/telegram/channel.ts"))).toBe(true);
    expect(matching(loaded, HOST_SIDE)).toEqual([]);
    expect(matching(loaded, CONFIG_VALIDATION)).toEqual([]);
  });
});
