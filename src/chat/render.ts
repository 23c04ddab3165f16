/** Output for the terminal chat: colours and a prompt on a TTY, plain lines when piped. */
export interface ChatOutput {
  readonly tty: boolean;
  text(chunk: string): void;
  line(message: string): void;
  info(message: string): void;
  tool(message: string): void;
  error(message: string): void;
}

export function createChatOutput(stream: NodeJS.WriteStream = process.stdout, tty = Boolean(stream.isTTY)): ChatOutput {
  const style = (code: string, s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
  return {
    tty,
    text: (chunk) => void stream.write(chunk),
    line: (message) => void stream.write(message + "\n"),
    info: (message) => void stream.write(style("2", message) + "\n"),
    tool: (message) => void stream.write(style("36", `  → ${message}`) + "\n"),
    error: (message) => void stream.write(style("31", `error: ${message}`) + "\n"),
  };
}
