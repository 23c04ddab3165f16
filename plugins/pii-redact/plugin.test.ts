import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("masks e-mail addresses, phone numbers and valid card numbers in the user's message", async () => {
  const result = await plugin.middleware("inbound", {
    text: "I am ada@example.com, call +44 20 7946 0958, card 4111 1111 1111 1111 (order 1234 5678 9012 3456)",
  });
  expect(result).toMatchObject({
    action: "continue",
    envelope: { text: "I am [email], call [phone], card [card] (order 1234 5678 9012 3456)" },
  });
  expect(await plugin.kv.get("masked_card")).toBe("1");
});

test("masks what the model is sent and what it answers", async () => {
  const request = await plugin.middleware("llm_request", {
    messages: [{ role: "user", content: "mail bob@example.org" }],
  });
  expect(request).toMatchObject({ action: "continue", envelope: { messages: [{ role: "user", content: "mail [email]" }] } });
  const response = await plugin.middleware("llm_response", { text: "Sure, I wrote to bob@example.org" });
  expect(response).toMatchObject({ action: "continue", envelope: { text: "Sure, I wrote to [email]" } });
});

test("blocks an inbound message carrying a secret, and says why", async () => {
  const result = await plugin.middleware("inbound", { text: "here is my key sk-proj-abcdefghijklmnopqrstuvwx" });
  expect(result.action).toBe("block");
  expect(result.action === "block" && result.reason).toContain("looks like it contains a secret");
  expect(await plugin.kv.get("blocked")).toBe("1");
  expect((await plugin.logs()).join("\n")).toContain("blocked an inbound message carrying an API key");
});

test("leaves ordinary text alone", async () => {
  const result = await plugin.middleware("outbound", { text: "The meeting is at 10:30 in room 4." });
  expect(result).toMatchObject({ action: "continue", envelope: { text: "The meeting is at 10:30 in room 4." } });
});
