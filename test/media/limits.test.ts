import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import {
  AUDIO_MAX_BYTES,
  AUDIO_MAX_SECONDS,
  audioFromBytes,
  checkImageCount,
  IMAGE_MAX_BYTES,
  imageFromBase64,
  imageFromBytes,
  imageFromDataUrl,
  imageFromHttpsUrl,
  imageFromUrl,
  IMAGE_URL_MAX_CHARS,
  MESSAGE_MAX_IMAGES,
} from "../../src/media/index.ts";
import { toTurnMessages as anthropicTurnMessages } from "../../src/gateway/anthropic/convert.ts";
import { jpeg, mp3, png, wav } from "./samples.ts";

// the boundary cases encode, decode and hash tens of megabytes: seconds on a loaded 2-core machine
setDefaultTimeout(60_000);

function code(body: () => unknown): string | null {
  try {
    body();
    return null;
  } catch (error) {
    return isPrxError(error) ? error.code : "not a PrxError";
  }
}

describe("media limits, at the boundary", () => {
  test("an image of IMAGE_MAX_BYTES passes, one byte more fails", () => {
    const ref = imageFromBytes(png(10, 10, IMAGE_MAX_BYTES));
    expect(ref.bytes).toBe(IMAGE_MAX_BYTES);
    expect(ref.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(code(() => imageFromBytes(png(10, 10, IMAGE_MAX_BYTES + 1)))).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a data URL's image is bounded the same way", () => {
    const url = (bytes: Uint8Array) => `data:image/png;base64,${Buffer.from(bytes).toString("base64")}`;
    expect(imageFromDataUrl(url(png(1, 1, IMAGE_MAX_BYTES))).bytes).toBe(IMAGE_MAX_BYTES);
    expect(code(() => imageFromDataUrl(url(png(1, 1, IMAGE_MAX_BYTES + 1))))).toBe("PAYLOAD_TOO_LARGE");
  });

  test(`${MESSAGE_MAX_IMAGES} images in a message pass, one more fails`, () => {
    expect(code(() => checkImageCount(MESSAGE_MAX_IMAGES))).toBeNull();
    expect(code(() => checkImageCount(MESSAGE_MAX_IMAGES + 1))).toBe("LIMIT_EXCEEDED");
  });

  test("audio of AUDIO_MAX_BYTES passes, one byte more fails", () => {
    expect(audioFromBytes(mp3(AUDIO_MAX_BYTES)).bytes).toBe(AUDIO_MAX_BYTES);
    expect(code(() => audioFromBytes(mp3(AUDIO_MAX_BYTES + 1)))).toBe("PAYLOAD_TOO_LARGE");
  });

  test("audio of AUDIO_MAX_SECONDS passes, longer fails (from the WAV header, or as the platform reports)", () => {
    expect(audioFromBytes(mp3(), { seconds: AUDIO_MAX_SECONDS }).seconds).toBe(AUDIO_MAX_SECONDS);
    expect(code(() => audioFromBytes(mp3(), { seconds: AUDIO_MAX_SECONDS + 1 }))).toBe("PAYLOAD_TOO_LARGE");
    expect(audioFromBytes(wav(AUDIO_MAX_SECONDS)).seconds).toBe(AUDIO_MAX_SECONDS);
    expect(code(() => audioFromBytes(wav(AUDIO_MAX_SECONDS + 1)))).toBe("PAYLOAD_TOO_LARGE");
  });

  test("the declared type is not trusted: bytes that are no image are refused", () => {
    const svg = Buffer.from("<svg/>").toString("base64");
    expect(code(() => imageFromDataUrl(`data:image/png;base64,${svg}`))).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(code(() => imageFromBytes(mp3()))).toBe("UNSUPPORTED_MEDIA_TYPE");
    const declaredJpeg = imageFromDataUrl(`data:image/jpeg;base64,${Buffer.from(png(2, 3)).toString("base64")}`);
    expect(declaredJpeg.mime).toBe("image/png");
    expect(code(() => imageFromDataUrl("data:image/png;base64,@@@@"))).toBe("BAD_REQUEST");
  });

  test("a data URL's data is clean base64 (it goes into provider requests as it is)", () => {
    // a length that needs padding
    const bytes = png(2, 3).length % 3 === 0 ? [...png(2, 3), 0] : [...png(2, 3)];
    const clean = Buffer.from(bytes).toString("base64");
    expect(clean).toEndWith("=");
    expect(imageFromDataUrl(`data:image/png;base64,${clean}`).data).toBe(clean);
    const broken = [
      `${clean.slice(0, 8)} ${clean.slice(8)}`, // whitespace
      `${clean.slice(0, 8)}"${clean.slice(9)}`, // a quote in place of a character
      clean.replace(/=+$/, ""), // padding left out
    ];
    for (const data of broken) {
      expect([data.slice(0, 12), code(() => imageFromDataUrl(`data:image/png;base64,${data}`))]).toEqual([data.slice(0, 12), "BAD_REQUEST"]);
    }
  });

  test("data far into a long encoding is held to the same clean base64", () => {
    // 200 KB: the encoding is read in pieces of 64 Ki characters; each fault sits in a later piece
    const clean = Buffer.from(png(640, 480, 200 * 1024)).toString("base64");
    expect(imageFromBase64(clean)).toMatchObject({ kind: "image", mime: "image/png", bytes: 200 * 1024, width: 640, height: 480, data: clean });
    const at = 150_000;
    const broken = [
      `${clean.slice(0, at)}"${clean.slice(at + 1)}`, // a quote in place of a character
      `${clean.slice(0, at)} ${clean.slice(at + 1)}`, // a space in place of a character
      `${clean.slice(0, at)}QQ==${clean.slice(at + 4)}`, // padding before the end
    ];
    for (const data of broken) {
      expect(data.length).toBe(clean.length);
      expect(code(() => imageFromDataUrl(`data:image/png;base64,${data}`))).toBe("BAD_REQUEST");
    }
  });

  test("a JPEG whose frame size comes after a long segment still has its size", () => {
    const app1 = [0xff, 0xe1, 0xea, 0x62, ...new Array<number>(60_000).fill(0)]; // 60,002 bytes of segment
    const sof0 = [0xff, 0xc0, 0x00, 0x11, 8, 0x01, 0xe0, 0x02, 0x80, 3];
    const bytes = Uint8Array.from([0xff, 0xd8, ...app1, ...sof0, ...new Array<number>(64).fill(0)]);
    const ref = imageFromDataUrl(`data:image/jpeg;base64,${Buffer.from(bytes).toString("base64")}`);
    expect(ref).toMatchObject({ mime: "image/jpeg", width: 640, height: 480, bytes: bytes.length });
    expect(imageFromDataUrl(`data:image/jpeg;base64,${Buffer.from(jpeg(3, 2)).toString("base64")}`)).toMatchObject({ width: 3, height: 2 });
  });

  test("a data URL in base64url's alphabet is read as Buffer reads it", () => {
    // bytes whose standard encoding has + and /, so the url-safe one has - and _
    const bytes = png(2, 3, 66);
    bytes.set([0xfb, 0xff, 0xbf], 60);
    const url = Buffer.from(bytes).toString("base64url");
    expect(url).toMatch(/[-_]/);
    const padded = url + "=".repeat((4 - (url.length % 4)) % 4);
    expect(imageFromDataUrl(`data:image/png;base64,${padded}`)).toMatchObject({ mime: "image/png", bytes: 66 });
  });

  test("an Anthropic base64 image source is held to the same clean base64 as a data URL", () => {
    const clean = Buffer.from(png(2, 3)).toString("base64");
    const request = (data: string) => ({
      messages: [{ role: "user" as const, content: [{ type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data } }] }],
    });
    expect(anthropicTurnMessages(request(clean)).media).toMatchObject([{ kind: "image", mime: "image/png", data: clean }]);
    // a quote would end the JSON string the data is written into in the provider's request
    expect(code(() => anthropicTurnMessages(request(`${clean.slice(0, 8)}"${clean.slice(9)}`)))).toBe("BAD_REQUEST");
    expect(code(() => anthropicTurnMessages(request(`${clean.slice(0, 8)} ${clean.slice(8)}`)))).toBe("BAD_REQUEST");
  });

  test("image URLs are https or data", () => {
    expect(imageFromUrl("https://example.com/cat.png", { detail: "low" })).toEqual({ kind: "image", url: "https://example.com/cat.png", detail: "low" });
    expect(code(() => imageFromUrl("http://example.com/cat.png"))).toBe("BAD_REQUEST");
    expect(code(() => imageFromUrl("file:///etc/passwd"))).toBe("BAD_REQUEST");
  });

  test("an https image URL of IMAGE_URL_MAX_CHARS passes (handed to the provider as it is), one character more fails", () => {
    const url = (n: number) => {
      const base = "https://example.com/cat.png?x=";
      return base + "a".repeat(n - base.length);
    };
    expect(imageFromHttpsUrl(url(IMAGE_URL_MAX_CHARS))).toMatchObject({ kind: "image", url: url(IMAGE_URL_MAX_CHARS) });
    expect(code(() => imageFromHttpsUrl(url(IMAGE_URL_MAX_CHARS + 1)))).toBe("BAD_REQUEST");
  });
});
