/**
 * Images in the web console (Chromium through playwright-core against the compiled binary's gateway): picked with
 * the file picker, pasted and dropped, they reach the model as image_url parts, and the conversation shows them.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { chromiumAvailable } from "../helpers/servers.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { launchOffline } from "../console/browser.ts";
import { gif, png } from "./samples.ts";

setDefaultTimeout(60_000);

// what the page's own scripts see (the function given to page.evaluate runs in the browser)
declare const document: { querySelector(selector: string): { dispatchEvent(event: unknown): boolean } | null };
declare const DataTransfer: new () => { items: { add(file: File): void } };
declare const ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
declare const DragEvent: new (type: string, init: Record<string, unknown>) => unknown;

const enabled = chromiumAvailable();
let fake: FakeServer;
let gateway: RunningGateway;
let browser: Browser;
let cleanup = () => {};

beforeAll(async () => {
  if (!enabled) return;
  await ensureBinary();
  fake = startFakeOpenAI();
  const ws = tempWorkspace(fakeProviderConfig(fake.url, `models = ["fake-model"]\n[reliability]\nretries = 0\n[memory]\nauto_recall = false\n`));
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir);
  browser = await launchOffline();
}, 300_000);

afterAll(async () => {
  if (!enabled) return;
  await browser?.close();
  gateway?.proc.kill("SIGTERM");
  await gateway?.proc.exited;
  await fake?.stop();
  cleanup();
});

async function signIn(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(gateway.url);
  await page.getByTestId("signin").waitFor();
  await page.fill("#pair-code", gateway.code!);
  await page.click("button[type=submit]");
  await page.getByTestId("chat-view").waitFor();
  return page;
}

const dataUrl = (type: string, bytes: Uint8Array) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
const userParts = () => fake.chatRequests().at(-1)!.body.messages.at(-1).content;

/** Paste or drop `bytes` as a file into the page, as the browser delivers a clipboard or drag-and-drop file. */
async function deliver(page: Page, how: "paste" | "drop", name: string, type: string, bytes: Uint8Array): Promise<void> {
  await page.evaluate(
    ({ how, name, type, data }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], name, { type }));
      if (how === "paste") {
        document.querySelector("[data-testid=composer]")!.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
      } else {
        document.querySelector("form.composer")!.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
      }
    },
    { how, name, type, data: Buffer.from(bytes).toString("base64") },
  );
}

describe.skipIf(!enabled)("images in the web console", () => {
  test("picked, pasted and dropped images reach the model as image_url parts and show in the conversation", async () => {
    const page = await signIn();
    const picked = png(64, 48, 900);
    const pasted = gif(16, 16, 300);
    const dropped = png(20, 10, 500);

    await page.getByTestId("attach-input").setInputFiles({ name: "picked.png", mimeType: "image/png", buffer: Buffer.from(picked) });
    await page.getByTestId("attachment").first().waitFor();
    await page.getByTestId("composer").fill("what is in the picture?");
    await page.getByTestId("composer").press("Enter");
    await page.getByTestId("send").waitFor();
    await page.locator(".msg.assistant").filter({ hasText: "echo: what is in the picture?" }).waitFor();
    expect(userParts()).toEqual([
      { type: "text", text: "what is in the picture?" },
      { type: "image_url", image_url: { url: dataUrl("image/png", picked) } },
    ]);
    expect(await page.getByTestId("user-image").count()).toBe(1);
    expect(await page.getByTestId("attachment").count()).toBe(0);

    await deliver(page, "paste", "pasted.gif", "image/gif", pasted);
    await deliver(page, "drop", "dropped.png", "image/png", dropped);
    await page.getByTestId("attachment").nth(1).waitFor();
    await page.getByTestId("composer").fill("and these two");
    await page.getByTestId("composer").press("Enter");
    await page.locator(".msg.assistant").filter({ hasText: "echo: and these two" }).waitFor();
    expect(userParts()).toEqual([
      { type: "text", text: "and these two" },
      { type: "image_url", image_url: { url: dataUrl("image/gif", pasted) } },
      { type: "image_url", image_url: { url: dataUrl("image/png", dropped) } },
    ]);

    // the session keeps the images by hash: reopened, the conversation names them
    const session = await page.locator(".sessions li.active").getAttribute("data-id");
    await page.getByTestId("new-session").click();
    await page.locator(`.sessions li[data-id="${session}"] .session-open`).click();
    await page.getByTestId("media-chip").nth(2).waitFor();
    expect(await page.getByTestId("media-chip").allTextContents()).toEqual(["image: png 64×48", "image: gif 16×16", "image: png 20×10"]);
    await page.close();
  });
});
