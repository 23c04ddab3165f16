/** Limits of the Responses API wire (OpenAI's own where it states one). */

/** Most metadata keys on a response. */
export const RESPONSES_METADATA_MAX_KEYS = 16;
/** Longest metadata key. */
export const RESPONSES_METADATA_KEY_MAX_CHARS = 64;
/** Longest metadata value. */
export const RESPONSES_METADATA_VALUE_MAX_CHARS = 512;
/** Input items listed per page by default / at most (GET /v1/responses/{id}/input_items). */
export const RESPONSES_INPUT_ITEMS_DEFAULT = 20;
export const RESPONSES_INPUT_ITEMS_MAX = 100;
/** Most items a conversation carried by previous_response_id may hold (the chain's inputs and outputs). */
export const RESPONSES_CONTEXT_MAX_ITEMS = 1000;
