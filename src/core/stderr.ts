/**
 * Write whole lines to stderr through console.error, which writes to the descriptor itself: the first use of
 * process.stderr builds Node's stream machinery (~3 MB of a compiled binary's memory and a thread). One trailing
 * newline is the line's own (console.error adds it back); a string is printed as it is, placeholders included.
 */
export function writeStderrLines(text: string): void {
  if (text.length === 0) return;
  console.error(text.endsWith("\n") ? text.slice(0, -1) : text);
}
