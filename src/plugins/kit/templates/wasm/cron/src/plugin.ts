// __PLUGIN_NAME__: a cron job. run() is called on the schedule; what it returns is published on the bus as
// `prx.cron.<plugin>`; a throw is the run's error.
import { defineCron, kv, log } from "@prx/kit";

export const cronExports = defineCron({
  run() {
    const runs = kv.increment("runs");
    log.info(`run ${runs}`);
    return `run #${runs}`;
  },
});
