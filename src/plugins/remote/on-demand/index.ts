/** Remote plugins that start on their first call: the cached descriptor, its key, and which plugins stay running. */
export { descriptorCache, DESCRIPTOR_CACHE_VERSION, type DescriptorCache } from "./descriptor-cache.ts";
export { descriptorKey } from "./key.ts";
export { pluginCodeHash } from "./code-hash.ts";
export { keepsRunning } from "./policy.ts";
