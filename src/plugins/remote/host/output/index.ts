/**
 * A remote plugin's output as the host keeps it: its log lines and refusals under a budget, and the tail of its
 * stderr. The Worker side imports budget.ts alone (its console guard), so a Worker loads nothing else of the host.
 */
export { PluginOutputLog } from "./plugin-output.ts";
export { HOST_LOG_LIMITS, OutputBudget, PLUGIN_OUTPUT_LIMITS, type BudgetLimits } from "./budget.ts";
export { TailLines } from "./stderr-tail.ts";
