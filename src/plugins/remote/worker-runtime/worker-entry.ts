/** The Bun Worker script of remote plugins (an extra entrypoint of the compiled binary). */
import { startupDone } from "../../../core/jit-policy.ts";
import { launchPlugin, REMOTE_LAUNCH_ENV } from "./launcher.ts";

// a plugin's calls are the hot path of this thread: the normal JIT from the start
startupDone();

await launchPlugin("worker", process.env[REMOTE_LAUNCH_ENV]);
