export { bootGateway, GATEWAY_PHASES, type BootedGateway, type GatewayBootOptions, type GatewayPhase } from "./gateway.ts";
export { pluginsPresent } from "./plugins-present.ts";
