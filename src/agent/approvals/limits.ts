/** The arguments of a call as stored for an approval and in the audit log, at most this many characters. */
export const APPROVAL_PREVIEW_MAX_CHARS = 500;
/** How often a waiting call reads its approval from the store (an answer given on another replica or process). */
export const APPROVAL_POLL_MS = 250;
/** Pending approvals listed at once (GET /api/approvals). */
export const APPROVALS_LIST_MAX = 100;
/** A reason given with a decision, at most this many characters. */
export const APPROVAL_REASON_MAX_CHARS = 500;
/** Audit entries returned at once (GET /api/audit, prx audit). */
export const AUDIT_LIST_MAX = 1000;
export const AUDIT_LIST_DEFAULT = 100;
