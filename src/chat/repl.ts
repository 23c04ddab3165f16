import { createInterface, type Interface } from "node:readline";
import type { AgentHost } from "../agent/index.ts";
import { errorMessage, isPrxError } from "../core/errors.ts";
import { setLogSink } from "../core/logger.ts";
import { ChatApprovalPrompt } from "./approval-prompt.ts";
import { InterruptController } from "./interrupt.ts";
import { runChatCommand, type ChatState } from "./commands.ts";
import { createChatOutput, toolCallLine, type ChatOutput } from "./render.ts";
import { recapLines } from "./recap.ts";
import type { StoredMessage } from "../storage/types.ts";

export interface ChatOptions {
  host: AgentHost;
  state: ChatState;
  input?: NodeJS.ReadableStream;
  output?: ChatOutput;
  /** The end of a continued session, shown before the first prompt. */
  recap?: readonly StoredMessage[];
}

/** Ctrl-C at the prompt with a half-typed line clears the line, as shells do; the next one (line empty) exits. */
function clearTypedLine(rl: Interface): boolean {
  if (rl.line.length === 0) return false;
  rl.write(null, { ctrl: true, name: "e" });
  rl.write(null, { ctrl: true, name: "u" });
  return true;
}

/** The terminal chat loop. Works on a TTY and with piped stdin (plain output, no escape codes). */
export async function runChat({ host, state, input = process.stdin, output, recap }: ChatOptions): Promise<number> {
  const out = output ?? createChatOutput();
  if (out.tty) setLogSink((line) => process.stderr.write(`\r${line}\n`));
  const choice = host.resolveModelChoice({ provider: state.provider, model: state.model, agent: state.agent });
  out.info(`prx chat — session ${state.sessionId}, ${choice.provider}/${choice.model}. /help for commands.`);
  if (recap && recap.length > 0) {
    out.info("where you left off:");
    for (const line of recapLines(recap)) out.line(line);
  }

  const rl = createInterface(out.tty ? { input, output: process.stdout, terminal: true, prompt: "you> " } : { input, terminal: false });
  const prompt = () => (out.tty ? rl.prompt() : undefined);
  let exiting = false;
  let turnRunning = false;
  const interrupts = new InterruptController(
    () => {
      exiting = true;
      rl.close();
    },
    (m) => out.info(`\n${m}`),
  );
  rl.on("SIGINT", () => {
    if (!turnRunning && clearTypedLine(rl)) return;
    interrupts.interrupt();
  });
  const onSignal = () => interrupts.interrupt();
  process.on("SIGINT", onSignal);

  const approvals = new ChatApprovalPrompt(rl, out, host.approvals);
  let lineIndex = 0;
  let failures = 0;
  // true until /exit or Ctrl-C ends the chat: the input itself ended (Ctrl-D, or the end of piped text)
  let inputEnded = true;
  prompt();
  try {
    for await (const raw of rl) {
      if (exiting) {
        inputEnded = false;
        break;
      }
      // a line that answered an approval prompt during a turn is not a message
      if (approvals.consumed(lineIndex++)) continue;
      const line = raw.trim();
      if (!line) {
        prompt();
        continue;
      }
      let command: "exit" | boolean;
      try {
        command = await runChatCommand(line, state, host, out);
      } catch (error) {
        // A command that fails (an unknown model hint, ...) is a message; the chat goes on.
        out.error(errorMessage(error));
        command = true;
      }
      if (command === "exit") {
        inputEnded = false;
        break;
      }
      if (command) {
        prompt();
        continue;
      }
      const signal = interrupts.begin();
      turnRunning = true;
      out.spinner.start();
      try {
        const media = state.images;
        state.images = undefined;
        await host.runTurn({
          sessionId: state.sessionId,
          text: line,
          ...(media ? { media } : {}),
          channel: "chat",
          userId: state.userId ?? null,
          agent: state.agent,
          provider: state.provider,
          model: state.model,
          signal,
          approvals: approvals.route(),
          observer: {
            onDelta: (t) => out.text(t),
            onToolCallStart: (call) => out.tool(toolCallLine(call)),
            onToolResult: (call, result) => {
              if (!result.success) out.tool(`${call.name} failed: ${result.error ?? ""}`);
              // The model thinks again over the result.
              out.spinner.start();
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
        out.spinner.stop();
        turnRunning = false;
        interrupts.end();
      }
      prompt();
    }
  } finally {
    out.spinner.stop();
    process.off("SIGINT", onSignal);
    rl.close();
  }
  // Ctrl-D at the prompt: the shell's prompt starts on a line of its own
  if (out.tty && inputEnded && !exiting) out.text("\n");
  return failures > 0 && !out.tty ? 1 : 0;
}
