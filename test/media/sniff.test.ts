import { describe, expect, test } from "bun:test";
import { sniffMedia } from "../../src/media/index.ts";
import { gif, jpeg, m4a, mp3, ogg, png, wav, webp } from "./samples.ts";

describe("media types are read from the bytes", () => {
  test("images with their dimensions", () => {
    expect(sniffMedia(png(1024, 768))).toEqual({ kind: "image", mime: "image/png", format: "png", width: 1024, height: 768 });
    expect(sniffMedia(jpeg(640, 480))).toEqual({ kind: "image", mime: "image/jpeg", format: "jpeg", width: 640, height: 480 });
    expect(sniffMedia(gif(32, 16))).toEqual({ kind: "image", mime: "image/gif", format: "gif", width: 32, height: 16 });
    expect(sniffMedia(webp(300, 200))).toEqual({ kind: "image", mime: "image/webp", format: "webp", width: 300, height: 200 });
  });

  test("audio, with the length of a WAV clip", () => {
    expect(sniffMedia(ogg())?.mime).toBe("audio/ogg");
    expect(sniffMedia(mp3())?.mime).toBe("audio/mpeg");
    expect(sniffMedia(m4a())?.mime).toBe("audio/mp4");
    expect(sniffMedia(wav(2))).toEqual({ kind: "audio", mime: "audio/wav", format: "wav", seconds: 2 });
  });

  test("anything else is unknown, whatever it claims to be", () => {
    expect(sniffMedia(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(sniffMedia(new Uint8Array(0))).toBeNull();
    expect(sniffMedia(new Uint8Array([0x89, 0x50]))).toBeNull();
  });
});
