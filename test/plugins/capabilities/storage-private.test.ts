/** Private memories on a `wasm:` storage backend: the WIT has no flag, so they live under the category "private". */
import { describe, expect, test } from "bun:test";
import { PRIVATE_CATEGORY } from "../../../src/memory/index.ts";
import { openScenario } from "./helpers.ts";

describe("wasm: storage, private entries", () => {
  test("a private store reaches the guest as category private, is left out of auto-recall and found when asked for", async () => {
    const scenario = await openScenario(["storage-ts"], '[memory]\nbackend = "wasm:ts-kv"\n');
    try {
      const { host } = scenario.opened;
      await host.memory.store("alarm", "the house alarm code is 4821", "home", null, { private: true });
      await host.memory.store("keys", "the house keys hang by the door", "home");
      const stored = await host.memory.get("alarm");
      expect([stored?.category, stored?.private]).toEqual([PRIVATE_CATEGORY, true]);
      expect((await host.memory.recall("house", 5)).map((e) => e.key)).toEqual(["keys"]);
      const explicit = await host.memory.recall("house", 5, null, { includePrivate: true });
      expect(explicit.map((e) => e.key).sort()).toEqual(["alarm", "keys"]);
      await host.runTurn({ sessionId: "p", channel: "test", text: "what is the house alarm code?" });
      const prompt = JSON.stringify(scenario.fake.chatRequests().at(-1)!.body);
      expect(prompt).not.toContain("4821");
    } finally {
      await scenario.close();
    }
  });
});
