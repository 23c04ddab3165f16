import { h } from "./dom.ts";

/** Images per message (the gateway's MESSAGE_MAX_IMAGES; it refuses more). */
export const MAX_IMAGES = 10;

/**
 * Images waiting to be sent with the next message: picked with the Attach button, pasted into the composer or
 * dropped on it. Each is read as a data: URL (the gateway reads the type from the bytes).
 */
export function attachmentTray(onError: (message: string) => void) {
  const images: Array<{ url: string; name: string }> = [];
  const tray = h("div", { class: "attachments", "data-testid": "attachments" });
  const picker = h("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/webp", multiple: true, hidden: true, "data-testid": "attach-input" });
  const button = h("button", { type: "button", title: "Attach images (or paste, or drop them here)", "data-testid": "attach", onclick: () => picker.click() }, "Attach");

  const render = () => {
    tray.replaceChildren(
      ...images.map((image, index) =>
        h(
          "span",
          { class: "attachment", "data-testid": "attachment" },
          h("img", { src: image.url, alt: image.name, title: image.name }),
          h("button", { type: "button", class: "icon", "aria-label": `remove ${image.name}`, onclick: () => (images.splice(index, 1), render()) }, "✕"),
        ),
      ),
    );
  };

  const add = async (files: Iterable<File>) => {
    for (const file of files) {
      if (!file.type.startsWith("image/")) continue;
      if (images.length >= MAX_IMAGES) {
        onError(`at most ${MAX_IMAGES} images per message`);
        break;
      }
      const url = await new Promise<string>((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(String(reader.result));
        reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
        reader.readAsDataURL(file);
      });
      images.push({ url, name: file.name || "pasted image" });
    }
    render();
  };

  picker.addEventListener("change", () => {
    void add(picker.files ?? []);
    picker.value = "";
  });

  return {
    tray,
    button,
    picker,
    add,
    /** The data: URLs to send, emptying the tray. */
    take(): string[] {
      const urls = images.splice(0).map((image) => image.url);
      render();
      return urls;
    },
    get count() {
      return images.length;
    },
    /** Paste and drop handlers for the composer. */
    listen(target: HTMLElement, input: HTMLElement) {
      input.addEventListener("paste", (e) => {
        const files = [...((e as ClipboardEvent).clipboardData?.files ?? [])].filter((f) => f.type.startsWith("image/"));
        if (files.length === 0) return;
        e.preventDefault();
        void add(files);
      });
      target.addEventListener("dragover", (e) => e.preventDefault());
      target.addEventListener("drop", (e) => {
        const files = [...((e as DragEvent).dataTransfer?.files ?? [])];
        if (files.length === 0) return;
        e.preventDefault();
        void add(files);
      });
    },
  };
}
