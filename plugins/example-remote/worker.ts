import { bootstrap } from "prx/worker-runtime";
import { exampleRemotePlugin } from "./plugin.ts";

await bootstrap(exampleRemotePlugin);
