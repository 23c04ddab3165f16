/** The Bun Worker script of remote plugins (an extra entrypoint of the compiled binary). */
import { launchPlugin, REMOTE_LAUNCH_ENV } from "./launcher.ts";

await launchPlugin("worker", process.env[REMOTE_LAUNCH_ENV]);
