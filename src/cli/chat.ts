import { RECAP_MAX_MESSAGES, runChat } from "../chat/index.ts";
import type { StoredMessage } from "../storage/types.ts";
import { newId } from "../core/ids.ts";
import { parseCommand, usageError } from "./args.ts";
import { openHost } from "./open-host.ts";
import { cliSessionId } from "./session-id.ts";
import { cliUserId, USER_ID_MAX_BYTES } from "./user.ts";

export async function chatCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand(
    "prx chat",
    argv,
    {
      session: { type: "string", short: "s" },
      continue: { type: "boolean", short: "c" },
      provider: { type: "string" },
      model: { type: "string" },
      agent: { type: "string" },
      user: { type: "string" },
    },
    false,
  );
  if (values.help) {
    process.stdout.write(
      "Usage: prx chat [--session ID | --continue] [--agent ID] [--provider P] [--model M] [--user ID]\n\n" +
        `  --user ID   the user id middleware sees (inbound user_id; default: the OS user name), 1-${USER_ID_MAX_BYTES} bytes\n`,
    );
    return 0;
  }
  if (values.session && values.continue) throw usageError("prx chat: use either --session or --continue, not both");
  const userId = cliUserId(values.user, "prx chat");
  const session = cliSessionId(values.session, "prx chat");
  const host = await openHost(values.workspace);
  try {
    let sessionId = session ?? newId("chat");
    let recap: StoredMessage[] | undefined;
    if (values.continue) {
      const last = (await host.sessions.list(50, values.agent)).find((s) => s.channel === "chat");
      if (last) {
        sessionId = last.id;
        // a few more than shown: tool calls and results between them are left out of the recap
        recap = await host.sessions.messages(sessionId, RECAP_MAX_MESSAGES * 4);
      }
    }
    return await runChat({ host, state: { sessionId, model: values.model, provider: values.provider, userId, ...(values.agent ? { agent: values.agent } : {}) }, recap });
  } finally {
    await host.close();
  }
}
