import { unknownName } from "./args.ts";

/** Hidden child modes: the compiled binary re-executes itself for plugin subprocesses. */
const MODES = ["remote-plugin"] as const;

export async function childCommand(argv: string[]): Promise<number> {
  const [mode, ...rest] = argv;
  if (mode === "remote-plugin") {
    const { runRemoteChild } = await import("../plugins/remote/child-main.ts");
    return runRemoteChild(rest);
  }
  throw unknownName("child mode", mode ?? "", MODES, "prx __child");
}
