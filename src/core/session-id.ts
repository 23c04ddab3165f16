/** Longest session id (ASCII, so characters and bytes agree). */
export const SESSION_ID_MAX_BYTES = 128;
/** Session ids accepted everywhere: 1-128 of A-Z a-z 0-9 . _ : @ - */
export const SESSION_ID_PATTERN = new RegExp(`^[A-Za-z0-9._:@-]{1,${SESSION_ID_MAX_BYTES}}$`);
