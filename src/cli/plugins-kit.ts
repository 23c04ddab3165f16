/**
 * The plugin developer kit's commands (`prx plugins new|build|test|dev|pack|install`), each in its own file and
 * loaded only when used.
 */
export const KIT_SUBCOMMANDS = ["new", "build", "test", "dev", "pack", "install"] as const;
export type KitSubcommand = (typeof KIT_SUBCOMMANDS)[number];

export interface KitGlobals {
  workspace?: string;
}

export async function runKitCommand(sub: KitSubcommand, argv: string[], globals: KitGlobals): Promise<number> {
  switch (sub) {
    case "new":
      return (await import("./plugins-new.ts")).pluginsNew(argv);
    case "build":
      return (await import("./plugins-build.ts")).pluginsBuild(argv);
    case "test":
      return (await import("./plugins-test.ts")).pluginsTest(argv, globals);
    case "dev":
      return (await import("./plugins-dev.ts")).pluginsDev(argv, globals);
    case "pack":
      return (await import("./plugins-pack.ts")).pluginsPack(argv);
    case "install":
      return (await import("./plugins-install.ts")).pluginsInstall(argv, globals);
  }
}
