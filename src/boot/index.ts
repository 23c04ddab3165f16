// The gateway's boot loads the whole gateway: entry points that must stay small import the leaf modules beside it
// directly (cli/open-host.ts: plugins-present.ts; build.ts: start-profile.ts, tricks.ts).
export { bootGateway, GATEWAY_PHASES, type BootedGateway, type GatewayBootOptions, type GatewayPhase } from "./gateway.ts";
