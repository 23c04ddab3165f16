/** What the host lends remote plugins: models, memories, rooms and entities of the sessions, settings, cache, events. */
export {
  createRemoteHostBindings,
  REMOTE_MEMORY_MAX_BYTES,
  type ModelChoice,
  type RemoteHostBindingsOptions,
} from "./bindings.ts";
export { userEntityId } from "./rooms.ts";
