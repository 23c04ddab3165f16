// __PLUGIN_NAME__: a middleware. Each stage handler gets the stage's envelope and returns it (changed or not),
// returns nothing (the envelope it received, with any changes made to it), or returns block(reason): the turn ends
// there and the reason is the reply.
import { block, config, defineMiddleware, log } from "@prx/kit";

export const middlewareExports = defineMiddleware({
  inbound(envelope) {
    const text = envelope.text.toLowerCase();
    const word = config.list("banned").find((banned) => text.includes(banned.toLowerCase()));
    if (word) {
      log.warn(`blocked a message of ${envelope.user_id ?? "an unknown user"}`);
      return block(`Sorry, I cannot talk about "${word}".`);
    }
  },
  outbound(envelope) {
    const signature = config.getOr("signature", "");
    return signature ? { ...envelope, text: `${envelope.text}\n${signature}` } : envelope;
  },
});
