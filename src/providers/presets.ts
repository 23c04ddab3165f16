export { PROVIDER_PRESETS, type ProviderPreset } from "../config/provider-presets.ts";
