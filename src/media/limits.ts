/** Bounds of images and audio entering prx (every entry point: gateway, sessions API, console, CLI, channels). */

/** Bytes of one image (OpenAI's and Anthropic's own per-image limits are of this order). */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/** Images attached to one message. */
export const MESSAGE_MAX_IMAGES = 10;
/** Bytes of one audio clip (OpenAI's transcription endpoint takes files up to 25 MB). */
export const AUDIO_MAX_BYTES = 25 * 1024 * 1024;
/** Seconds of one audio clip, when its length is known (WAV header, or what the platform reports). */
export const AUDIO_MAX_SECONDS = 10 * 60;
/** Characters of an https image URL passed on to a provider. */
export const IMAGE_URL_MAX_CHARS = 8192;
/** Characters of a transcript that go into the turn. */
export const TRANSCRIPT_MAX_CHARS = 32_000;
/** Time to fetch one https image URL for a provider that cannot fetch it (redirects and body included). */
export const IMAGE_FETCH_TIMEOUT_MS = 15_000;
