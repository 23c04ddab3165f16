/**
 * A remote plugin's output as the host keeps it: its log lines and refusals under a budget, and the tail of its
 * stderr (their budget, output-budget.ts, is shared with the Worker's console guard).
 */
export { PluginOutputLog } from "./plugin-output.ts";
export { TailLines } from "./stderr-tail.ts";
