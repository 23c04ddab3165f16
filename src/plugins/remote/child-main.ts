/**
 * Subprocess mode of remote plugins. The compiled binary starts itself as
 * `<execPath> __remote-plugin-child` with PRX_REMOTE_PLUGIN_CHANNEL=stdio and the launch config in
 * PRX_REMOTE_PLUGIN_LAUNCH; cli/main.ts must dispatch to runRemoteChild before importing anything heavy.
 */
import { launchPlugin, REMOTE_LAUNCH_ENV } from "./worker-runtime/launcher.ts";

export { REMOTE_CHILD_ARG } from "./entrypoints.ts";

export async function runRemoteChild(_argv: string[] = []): Promise<void> {
  await launchPlugin("stdio", process.env[REMOTE_LAUNCH_ENV]);
}

if (import.meta.main) await runRemoteChild(process.argv.slice(2));
