import { createInterface } from "node:readline";
import type { AgentHost } from "../agent/index.ts";
import { errorMessage, isPrxError } from "../core/errors.ts";
import { setLogSink } from "../core/logger.ts";
import { InterruptController } from "./interrupt.ts";
import { runChatCommand, type ChatState } from "./commands.ts";
import { createChatOutput, type ChatOutput } from "./render.ts";

export interface ChatOptions {
  host: AgentHost;
  state: ChatState;
  input?: NodeJS.ReadableStream;
  output?: ChatOutput;
}

/** The terminal chat loop. Works on a TTY and with piped stdin (plain output, no escape codes). */
export async function runChat({ host, state, input = process.stdin, output }: ChatOptions): Promise<number> {
  const out = output ?? createChatOutput();
  if (out.tty) setLogSink((line) => process.stderr.write(`\r${line}\n`));
  const choice = host.resolveModelChoice({ provider: state.provider, model: state.model });
  out.info(`prx chat — session ${state.sessionId}, ${choice.provider}/${choice.model}. /help for commands.`);

  const rl = createInterface(out.tty ? { input, output: process.stdout, terminal: true, prompt: "you> " } : { input, terminal: false });
  const prompt = () => (out.tty ? rl.prompt() : undefined);
  let exiting = false;
  const interrupts = new InterruptController(
    () => {
      exiting = true;
      rl.close();
    },
    (m) => out.info(`\n${m}`),
  );
  rl.on("SIGINT", () => interrupts.interrupt());
  const onSignal = () => interrupts.interrupt();
  process.on("SIGINT", onSignal);

  let failures = 0;
  prompt();
  try {
    for await (const raw of rl) {
      if (exiting) break;
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      const command = runChatCommand(line, state, host, out);
      if (command === "exit") break;
      if (command) {
        prompt();
        continue;
      }
      const signal = interrupts.begin();
      try {
        await host.runTurn({
          sessionId: state.sessionId,
          text: line,
          channel: "chat",
          userId: state.userId ?? null,
          provider: state.provider,
          model: state.model,
          signal,
          observer: {
            onDelta: (t) => out.text(t),
            onToolCallStart: (call) => out.tool(`${call.name} ${call.arguments.slice(0, 100)}`),
            onToolResult: (call, result) => {
              if (!result.success) out.tool(`${call.name} failed: ${result.error ?? ""}`);
            },
            onMessage: (m) => out.line(`\n${m}`),
          },
        });
        out.text("\n");
      } catch (error) {
        out.text("\n");
        if (isPrxError(error, "ABORTED")) {
          out.info("turn cancelled; what was said so far is kept in the session");
        } else {
          failures++;
          out.error(errorMessage(error));
        }
      } finally {
        interrupts.end();
      }
      prompt();
    }
  } finally {
    process.off("SIGINT", onSignal);
    rl.close();
  }
  return failures > 0 && !out.tty ? 1 : 0;
}
