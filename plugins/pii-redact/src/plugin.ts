// pii-redact: masks personal data in the text each stage carries and blocks inbound secrets.
import { block, config, defineMiddleware, kv, log } from "@prx/kit";
import { findSecret, maskText } from "./patterns.ts";

function masked(text: string): string {
  const { text: out, counts } = maskText(text, config.list("mask"));
  for (const [kind, n] of Object.entries(counts)) if (n > 0) kv.increment(`masked_${kind}`, n);
  return out;
}

export const middlewareExports = defineMiddleware({
  inbound(envelope) {
    if (config.getOr("block_secrets", "true") === "true") {
      const secret = findSecret(envelope.text);
      if (secret) {
        kv.increment("blocked");
        log.warn(`blocked an inbound message carrying ${secret} (session ${envelope.session_id})`);
        return block(config.getOr("block_reason", "That message looks like it contains a secret."));
      }
    }
    envelope.text = masked(envelope.text);
  },
  llm_request(envelope) {
    for (const message of envelope.messages) message.content = masked(message.content);
  },
  llm_response(envelope) {
    envelope.text = masked(envelope.text);
  },
  outbound(envelope) {
    envelope.text = masked(envelope.text);
  },
});
