// The entry prx starts (plugin.toml [remote] entry). `prx/worker-runtime` is built into prx.
import { bootstrap } from "prx/worker-runtime";
import { plugin } from "./plugin.ts";

await bootstrap(plugin);
