import { errorMessage, PrxError, toPrxError } from "../../../core/errors.ts";
import { SandboxRequestSchema, type SandboxReply, type SandboxRequest } from "./protocol.ts";
import { SandboxSession } from "./session.ts";

/**
 * `prx __plugin-sandbox`: the process `@prx/kit/test` starts. Requests arrive over Bun's IPC channel, one at a time
 * in order; the first must be `load`. It ends after `close`, or when its parent goes away.
 */
export async function runSandboxServer(): Promise<number> {
  if (typeof process.send !== "function") {
    throw new PrxError("USAGE", "prx __plugin-sandbox is started by @prx/kit/test over IPC, not by hand", {
      hint: "run the plugin's tests with `prx plugins test`",
    });
  }
  const send = (reply: SandboxReply) => process.send!(reply);
  let session: SandboxSession | null = null;
  let queue = Promise.resolve();
  const { promise: finished, resolve: finish } = Promise.withResolvers<number>();

  const handle = async (raw: unknown): Promise<void> => {
    const id = typeof (raw as { id?: unknown })?.id === "number" ? (raw as { id: number }).id : -1;
    const parsed = SandboxRequestSchema.safeParse(raw);
    if (!parsed.success) {
      send({ id, ok: false, error: { code: "BAD_REQUEST", message: `invalid sandbox request: ${parsed.error.issues[0]?.message}` } });
      return;
    }
    const request: SandboxRequest = parsed.data;
    let closed = false;
    try {
      let result: unknown;
      if (request.op === "load") {
        if (session) throw new PrxError("BAD_REQUEST", "this sandbox already loaded a plugin", { hint: "call loadPlugin() again for another" });
        session = await SandboxSession.open(request);
        result = session.info();
      } else {
        if (!session) throw new PrxError("BAD_REQUEST", `"${request.op}" before "load"`);
        result = await session.handle(request);
        if (request.op === "close") {
          await session.close();
          session = null;
          closed = true;
        }
      }
      send({ id, ok: true, result: result ?? null });
    } catch (error) {
      const failure = toPrxError(error, "PLUGIN_ERROR");
      send({ id, ok: false, error: { code: failure.code, message: errorMessage(failure) } });
    }
    if (closed) finish(0);
  };

  process.on("message", (raw: unknown) => {
    queue = queue.then(() => handle(raw));
  });
  process.on("disconnect", () => {
    void queue.then(async () => {
      await (session as SandboxSession | null)?.close();
      finish(0);
    });
  });
  const code = await finished;
  // the IPC channel keeps the process alive: let go of it once the last reply is on its way
  process.disconnect?.();
  return code;
}
