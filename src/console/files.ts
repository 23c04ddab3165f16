import { bundleConsole, type ConsoleFile } from "./bundle.ts";

/**
 * The console's files by name. From source they are bundled on first use; in the compiled binary build.ts replaces
 * this module (build-plugin.ts) with one that reads the files bundled at build time and embedded in the binary.
 */
export async function loadConsoleFiles(): Promise<ConsoleFile[]> {
  return bundleConsole();
}
