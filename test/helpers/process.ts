import { existsSync, readFileSync } from "node:fs";

/**
 * True while a process with this pid runs. A zombie counts as gone: it has exited and waits for its reaper (which can
 * be this test process, once an earlier test made it a child subreaper).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}
