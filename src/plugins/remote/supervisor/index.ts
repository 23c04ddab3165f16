/** Keeps one remote plugin's Worker or subprocess alive and correlates the calls in both directions. */
export { RemoteSupervisor } from "./supervisor.ts";
