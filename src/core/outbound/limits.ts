/** Redirect hops an outbound fetch follows, each one checked as the first URL was. */
export const OUTBOUND_MAX_REDIRECTS = 5;
