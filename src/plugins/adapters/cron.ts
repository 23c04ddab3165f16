import { PrxError } from "../../core/errors.ts";
import { CronSchedule } from "../../core/cron/index.ts";
import type { CronJob } from "../cron/types.ts";
import { ADAPTER_TIMEOUT_MARGIN_MS, describeCapability, guestCall } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, CronAdapter } from "./types.ts";

export function cronJobId(plugin: string, capability: string): string {
  return `${plugin}/${capability}`;
}

export async function createCronAdapter(context: AdapterContext): Promise<CronAdapter> {
  const { plugin, capability } = context;
  const where = describeCapability(context);
  const schedule = capability.schedule ?? "";
  try {
    new CronSchedule(schedule);
  } catch (cause) {
    throw new PrxError("PLUGIN_MANIFEST", `${where}: invalid schedule "${schedule}": ${(cause as Error).message}`, {
      cause,
    });
  }
  const job: CronJob = {
    id: cronJobId(plugin.name, capability.name),
    schedule,
    timeoutMs: plugin.resources.maxExecutionTimeMs + ADAPTER_TIMEOUT_MARGIN_MS,
    run: () =>
      guestCall(context, "run", [], "run", (raw) => {
        if (typeof raw !== "string")
          throw new PrxError("PLUGIN_OUTPUT", `${where}: run returned ${typeof raw}, expected a string`);
        return raw;
      }),
  };
  return { type: "cron", plugin: plugin.name, capability, job };
}
