import { colorEnabled, paint, visible } from "../core/terminal.ts";
import { createSpinner, type Spinner } from "./spinner.ts";

/** Output for the terminal chat: a prompt and a spinner on a TTY, colours unless NO_COLOR, plain lines when piped. */
export interface ChatOutput {
  readonly tty: boolean;
  /** The "thinking" line while a turn waits for output (never drawn off a TTY). */
  readonly spinner: Spinner;
  text(chunk: string): void;
  line(message: string): void;
  info(message: string): void;
  tool(message: string): void;
  error(message: string): void;
}

export function createChatOutput(
  stream: NodeJS.WriteStream = process.stdout,
  tty = Boolean(stream.isTTY),
  color = tty && colorEnabled(stream),
): ChatOutput {
  const write = (text: string) => void stream.write(text);
  const spinner = createSpinner(write, tty, color);
  // Anything written first erases the spinner's line.
  const out = (text: string) => {
    spinner.stop();
    write(text);
  };
  // model output, tool names and errors are remote text: no control character of theirs reaches the terminal
  const shown = (text: string) => visible(text, { multiline: true });
  return {
    tty,
    spinner,
    text: (chunk) => out(shown(chunk)),
    line: (message) => out(shown(message) + "\n"),
    info: (message) => out(paint(color, "2", shown(message)) + "\n"),
    tool: (message) => out(paint(color, "36", `  → ${shown(message)}`) + "\n"),
    error: (message) => out(paint(color, "31", `error: ${shown(message)}`) + "\n"),
  };
}

/** Characters of a tool call's arguments shown in its line. */
export const TOOL_LINE_ARGUMENTS_CHARS = 100;

/** A tool call as every terminal view shows it: `name(arguments…)`, the arguments cut to TOOL_LINE_ARGUMENTS_CHARS. */
export function toolCallLine(call: { name: string; arguments: string }): string {
  const args = call.arguments.length > TOOL_LINE_ARGUMENTS_CHARS ? `${call.arguments.slice(0, TOOL_LINE_ARGUMENTS_CHARS)}…` : call.arguments;
  return `${call.name}(${args})`;
}
