import { runChat } from "../chat/index.ts";
import { newId } from "../core/ids.ts";
import { parseCommand, usageError } from "./args.ts";
import { openHost } from "./open-host.ts";

export async function chatCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand(
    "prx chat",
    argv,
    {
      session: { type: "string", short: "s" },
      continue: { type: "boolean", short: "c" },
      provider: { type: "string" },
      model: { type: "string" },
    },
    false,
  );
  if (values.help) {
    process.stdout.write("Usage: prx chat [--session ID | --continue] [--provider P] [--model M]\n");
    return 0;
  }
  if (values.session && values.continue) throw usageError("prx chat: use either --session or --continue, not both");
  const host = await openHost(values.workspace);
  try {
    let sessionId = values.session ?? newId("chat");
    if (values.continue) {
      const last = host.sessions.list(50).find((s) => s.channel === "chat");
      if (last) sessionId = last.id;
    }
    return await runChat({ host, state: { sessionId, model: values.model, provider: values.provider } });
  } finally {
    await host.close();
  }
}
