/**
 * A sandbox Worker stand-in for pool-worker.test.ts: it keeps the two counts the main thread gives it and answers
 * each call with a result, counting the answer after posting it, as the sandbox Worker does.
 */
import { Mailbox } from "../../../src/plugins/hop/index.ts";

declare const self: Worker;
let answers: Mailbox | null = null;
self.onmessage = (event: MessageEvent) => {
  const msg = event.data as { type?: string; id?: number; answers?: SharedArrayBuffer };
  if (msg.type === "mailbox") answers = new Mailbox(msg.answers);
  if (msg.type === "call") {
    self.postMessage({ type: "result", id: msg.id, ok: true, value: "answered" });
    answers?.posted();
  }
};
self.postMessage({ type: "booted" });
