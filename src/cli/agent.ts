import { toolCallLine } from "../chat/render.ts";
import type { AgentHost, TurnInput } from "../agent/index.ts";
import { errorMessage } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { parseCommand, usageError } from "./args.ts";
import { InterruptController } from "../chat/interrupt.ts";
import { openHost } from "./open-host.ts";
import { writeOut } from "./stdout.ts";
import { terminalJson, visible } from "../core/terminal.ts";
import { cliSessionId } from "./session-id.ts";
import { cliUser, USER_ID_MAX_BYTES } from "./user.ts";

const USAGE = `Usage: prx agent -m "message" [--image PATH]... [--json] [--session ID] [--agent ID] [--provider P] [--model M] [--user ID] [--yes]
       prx agent            (interactive: one turn per input line)

  --yes         approve every tool call that [autonomy] would ask the owner about (no one can be asked here:
                without it such a call is denied, naming the setting; calls the settings deny stay denied)

  --image PATH  attach an image (PNG, JPEG, GIF, WebP) to the message; repeat for several

  --user ID   the user id middleware sees (inbound user_id; default: the OS user name), 1-${USER_ID_MAX_BYTES} bytes
`;

export async function agentCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand(
    "prx agent",
    argv,
    {
      message: { type: "string", short: "m" },
      json: { type: "boolean" },
      session: { type: "string", short: "s" },
      provider: { type: "string" },
      model: { type: "string" },
      agent: { type: "string" },
      user: { type: "string" },
      image: { type: "string", multiple: true },
      yes: { type: "boolean", short: "y" },
    },
    false,
  );
  if (values.help) {
    writeOut(USAGE);
    return 0;
  }
  const userId = cliUser(values.user, "prx agent");
  if (values.image && values.message === undefined) throw usageError('prx agent: --image goes with -m "message"');
  // read before the host opens: a missing or oversized file is a usage error that costs nothing
  const images = values.image ? await (await import("../media/file.ts")).imagesFromFiles(values.image) : undefined;
  const session = cliSessionId(values.session, "prx agent");
  const host = await openHost(values.workspace, { oneShot: true });
  const sessionId = session ?? newId("cli");
  let exitRequested = false;
  const interrupts = new InterruptController(
    () => {
      exitRequested = true;
      void host.close().finally(() => process.exit(130));
    },
    (m) => process.stderr.write(`\n${m}\n`),
  );
  process.on("SIGINT", () => interrupts.interrupt());

  const turn = async (text: string, media?: TurnInput["media"]): Promise<boolean> => {
    const input: TurnInput = {
      sessionId,
      text,
      ...(media ? { media } : {}),
      channel: "cli",
      // read by the turn only for an inbound middleware: the OS user's name is looked up then
      get userId() {
        return userId();
      },
      agent: values.agent,
      provider: values.provider,
      model: values.model,
      signal: interrupts.begin(),
      approvals: values.yes
        ? { kind: "yes" }
        : {
            kind: "refuse",
            hint: `run again with --yes to approve it, allow it with [autonomy.tools] or set [autonomy] level = "full"`,
            told: (message) => process.stderr.write(`\n  ✗ ${visible(message)}\n`),
          },
      observer: values.json
        ? {}
        : {
            onDelta: (t) => writeOut(visible(t, { multiline: true })),
            onToolCallStart: (call) => process.stderr.write(`\n  → ${visible(toolCallLine(call))}\n`),
            onMessage: (m) => writeOut(`\n${visible(m, { multiline: true })}\n`),
          },
    };
    try {
      const result = await host.runTurn(input);
      writeOut(values.json ? terminalJson(result) + "\n" : "\n");
      return true;
    } catch (error) {
      if (values.json) writeOut(terminalJson({ error: { code: (error as { code?: string }).code ?? "INTERNAL", message: errorMessage(error) } }) + "\n");
      process.stderr.write(`error: ${visible(errorMessage(error), { multiline: true })}\n`);
      return false;
    } finally {
      interrupts.end();
    }
  };

  try {
    if (values.message !== undefined) return (await turn(values.message, images)) ? 0 : 1;
    const { createInterface } = await import("node:readline");
    const rl = createInterface({ input: process.stdin, terminal: false });
    let ok = true;
    for await (const line of rl) {
      if (exitRequested) break;
      if (!line.trim()) continue;
      ok = (await turn(line)) && ok;
    }
    return ok ? 0 : 1;
  } finally {
    await host.close();
  }
}
