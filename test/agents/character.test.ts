import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { adviseOnPlugins } from "../../src/agents/character-plugins.ts";
import { CHARACTER_MAX_BYTES, characterId, characterProfile, composeCharacterPrompt, parseCharacter } from "../../src/agents/character.ts";
import { AgentProfileSchema } from "../../src/config/schema.ts";

const fixtures = join(import.meta.dir, "../fixtures/characters");
const read = (name: string) => parseCharacter(readFileSync(join(fixtures, name), "utf8"), name);

describe("an elizaOS 1.x character (name-speaker examples, style, no lore)", () => {
  const harbor = read("harbor.character.json");
  const prompt = composeCharacterPrompt(harbor);

  test("the prompt is composed as elizaOS's character provider does, in its order", () => {
    const sections = [
      "# About Harbor\nHas run the old east harbour for thirty years Reads the tide tables before breakfast Knows every skipper by the sound of their engine",
      "Harbor is steady",
      "Harbor is currently interested in tides and currents",
      "Harbor is also interested in small boat handling, marine weather and knot tying",
      "# Message Directions for Harbor\nShort sentences\nName the tide state when it matters\nAnswer the question first, then the warning",
      "# Example Conversations for Harbor\nUser1: Is it safe to take the dinghy out tonight?\nHarbor: Not after nine. The ebb runs hard past the breakwater.\n\n" +
        "User1: Which knot for a mooring line?\nHarbor: A bowline. Quick to tie, quick to free. (actions: REPLY)",
      "# Example Posts for Harbor\nSpring tides this week: mind the lower pontoon.",
      "Answer as Harbor, a calm harbour master. Keep to the facts of tides, ships and weather.",
    ];
    expect(prompt).toBe(sections.join("\n\n"));
    // post directions are for feeds, not chats
    expect(prompt).not.toContain("One notice per post");
  });

  test("it becomes an [agents.<id>] table with its own memory; secrets are never copied", () => {
    const profile = characterProfile(harbor);
    expect(AgentProfileSchema.parse(profile)).toEqual(profile);
    expect(profile).toMatchObject({ name: "Harbor", memory_scope: "own", system_prompt: prompt });
    expect(profile.bio).toHaveLength(3);
    expect(JSON.stringify(profile)).not.toContain("sk-never-copied");
    expect(characterId(harbor.name)).toBe("harbor");
  });

  test("its plugins: built in, a provider, a channel, unsupported, or a remote plugin with install steps", () => {
    const advice = adviseOnPlugins(harbor.plugins!);
    expect(advice.map((a) => [a.plugin, a.kind])).toEqual([
      ["@elizaos/plugin-sql", "builtin"],
      ["@elizaos/plugin-openai", "provider"],
      ["@elizaos/plugin-telegram", "channel"],
      ["@elizaos/plugin-twitter", "unsupported"],
      ["@elizaos/plugin-web-search", "remote"],
      ["@elizaos/plugin-bootstrap", "builtin"],
    ]);
    const remote = advice[4]!;
    expect(remote.install![0]).toBe("mkdir -p plugins/web-search && cd plugins/web-search && npm install @elizaos/plugin-web-search");
    expect(remote.install!.join("\n")).toContain('import plugin from "@elizaos/plugin-web-search"');
    expect(remote.install!.join("\n")).toContain('runtime = "remote"');
    expect(adviseOnPlugins(["not a package!"])[0]!.kind).toBe("unsupported");
  });
});

describe("an elizaOS 0.x character (lore, user-speaker examples, bio as one string)", () => {
  const keeper = read("lighthouse-v0.character.json");

  test("lore follows the bio in About; {{user1}} and speakers are filled in", () => {
    const prompt = composeCharacterPrompt(keeper);
    expect(prompt).toStartWith(
      "# About Keeper\nKeeper of the north light, a voice from the rocks.\nOnce kept the lamp lit through a three-day gale\nCounts the seconds between flashes without a watch",
    );
    expect(prompt).toContain("User1: How long have you kept the light?\nKeeper: Longer than User1 has been sailing, I would guess.");
    expect(prompt).toContain("# Message Directions for Keeper\nSpeak plainly\nBe brief");
    expect(prompt).toContain("# Example Posts for Keeper\nFog at dawn. Horn every thirty seconds.");
    expect(prompt).not.toContain("is also interested in");
    expect(characterProfile(keeper).bio).toEqual(["Keeper of the north light, a voice from the rocks."]);
  });
});

describe("character files prx refuses", () => {
  test("not JSON, no name, or larger than CHARACTER_MAX_BYTES (at the limit is read)", () => {
    expect(() => parseCharacter("{nope", "x.json")).toThrow(/not JSON/);
    expect(() => parseCharacter('{"bio": ["a"]}', "x.json")).toThrow(/x\.json: name/);
    const padded = (size: number) => {
      const head = '{"name":"A","system":"';
      return `${head}${"a".repeat(size - head.length - 2)}"}`;
    };
    expect(parseCharacter(padded(CHARACTER_MAX_BYTES), "x.json").name).toBe("A");
    expect(() => parseCharacter(padded(CHARACTER_MAX_BYTES + 1), "x.json")).toThrow(/limit is 1048576/);
  });

  test("ids made of names", () => {
    expect(characterId("Sam Altman")).toBe("sam-altman");
    expect(characterId("Éliza!!")).toBe("eliza");
    expect(characterId("***")).toBe("character");
    expect(characterId("x".repeat(40))).toHaveLength(32);
  });
});
