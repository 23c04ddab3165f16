import { setLogLevel } from "../../../src/core/logger.ts";

// expected failures are asserted through statuses and errors; keep the output readable
if (!process.env.PRX_TEST_LOGS) setLogLevel("silent");

export * from "./workspace.ts";
