import { describe, expect, test } from "bun:test";
import { BODY_BUFFER_MAX_BYTES, BodyBuffer } from "../../src/providers/body-buffer.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("a provider's body buffer", () => {
  test("the parts are written one after the other as UTF-8", () => {
    const parts = ['{"text":"déjà vu ✓","url":"', "data:image/png;base64,", "QUJD", '"}'];
    const { bytes, release } = new BodyBuffer().write(parts);
    expect(text(bytes)).toBe(parts.join(""));
    expect(bytes.length).toBe(Buffer.byteLength(parts.join("")));
    release();
  });

  test("given back, the buffer serves the next body; lent, the next body gets its own", () => {
    const buffer = new BodyBuffer();
    const first = buffer.write(["a".repeat(1000)]);
    const whileLent = buffer.write(["b".repeat(10)]);
    expect(whileLent.bytes.buffer).not.toBe(first.bytes.buffer);
    whileLent.release();
    // the first body is untouched by the second
    expect(text(first.bytes)).toBe("a".repeat(1000));
    first.release();
    const next = buffer.write(["c".repeat(10)]);
    expect(next.bytes.buffer).toBe(first.bytes.buffer);
    expect(text(next.bytes)).toBe("c".repeat(10));
    next.release();
  });

  test("a body of BODY_BUFFER_MAX_BYTES is written into the buffer, one byte more gets its own", () => {
    const buffer = new BodyBuffer();
    const atLimit = buffer.write(["x".repeat(BODY_BUFFER_MAX_BYTES)]);
    atLimit.release();
    const again = buffer.write(["y"]);
    expect(again.bytes.buffer).toBe(atLimit.bytes.buffer);
    again.release();
    const over = buffer.write(["z".repeat(BODY_BUFFER_MAX_BYTES + 1)]);
    expect(over.bytes.buffer).not.toBe(atLimit.bytes.buffer);
    expect(over.bytes.length).toBe(BODY_BUFFER_MAX_BYTES + 1);
    over.release();
    expect(buffer.write(["w"]).bytes.buffer).toBe(atLimit.bytes.buffer);
  });
});
