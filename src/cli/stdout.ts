/**
 * Output piped into a command that exits early (`prx agent ... | head -1`) closes our stdout: stop quietly with 0,
 * as CLI tools do, instead of a stack trace. Commands that print through console.log (the gateway) need no guard:
 * it ignores a closed stdout, and leaving process.stdout untouched spares building Node's stream machinery at start.
 */
export function exitQuietlyOnClosedStdout(): void {
  const quit = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  };
  process.stdout.on("error", quit);
}
