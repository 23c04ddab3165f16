import { describe, expect, test } from "bun:test";
import type { ChatMessage, MediaRef } from "../../../src/contracts/chat.ts";
import {
  describeImages,
  IMAGE_DESCRIPTION_MAX_CHARS,
  IMAGE_DESCRIPTION_PROMPT,
} from "../../../src/plugins/remote/image-description.ts";

const png: MediaRef = { kind: "image", mime: "image/png", data: "iVBORw0KGgo=", width: 2, height: 1, bytes: 8 };

function conversation(): ChatMessage[] {
  return [
    { role: "system", content: "be kind" },
    { role: "user", content: "an old picture", media: [png] },
    { role: "assistant", content: "nice" },
    { role: "user", content: "and this one?", media: [png, { ...png, mime: "image/jpeg" as const }] },
  ];
}

describe("images for a remote plugin's text model", () => {
  test("each image of the newest message goes to IMAGE_DESCRIPTION as elizaOS passes it; older ones become notes", async () => {
    const asked: Array<{ imageUrl: string; prompt: string }> = [];
    const out = await describeImages(conversation(), async (params) => {
      asked.push(params);
      return { title: `picture ${asked.length}`, description: "a cat on a mat" };
    });
    expect(asked).toEqual([
      { imageUrl: "data:image/png;base64,iVBORw0KGgo=", prompt: IMAGE_DESCRIPTION_PROMPT },
      { imageUrl: "data:image/jpeg;base64,iVBORw0KGgo=", prompt: IMAGE_DESCRIPTION_PROMPT },
    ]);
    expect(out[1]).toEqual({ role: "user", content: "an old picture\n[image: png 2x1, 8 B; shown to the model in an earlier turn]" });
    expect(out[3]).toEqual({
      role: "user",
      content: "and this one?\n[image: picture 1: a cat on a mat]\n[image: picture 2: a cat on a mat]",
    });
    expect(out.every((message) => message.media === undefined)).toBe(true);
  });

  test("a plugin without IMAGE_DESCRIPTION: the model is told an image came that it cannot see", async () => {
    const out = await describeImages(conversation(), null);
    expect(out[3]!.content).toBe(
      "and this one?\n[image: png 2x1, 8 B; this model cannot see images]\n[image: jpeg 2x1, 8 B; this model cannot see images]",
    );
  });

  test("a string answer is taken as it is; an empty one is said to be empty; a long one is cut at the limit", async () => {
    const [last] = (await describeImages([{ role: "user", content: "", media: [png] }], async () => "  a dog  ")).slice(-1);
    expect(last!.content).toBe("[image: a dog]");
    const empty = await describeImages([{ role: "user", content: "x", media: [png] }], async () => ({ title: " " }));
    expect(empty[0]!.content).toBe("x\n[image: png 2x1, 8 B; its description was empty]");
    const long = "d".repeat(IMAGE_DESCRIPTION_MAX_CHARS + 1);
    const cut = await describeImages([{ role: "user", content: "", media: [png] }], async () => long);
    expect(cut[0]!.content).toBe(`[image: ${"d".repeat(IMAGE_DESCRIPTION_MAX_CHARS)}]`);
  });

  test("messages without images are handed back untouched", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(await describeImages(messages, null)).toBe(messages);
  });
});
