import { EMAIL_MAX_FETCH_BATCH } from "../limits.ts";

/** What one search reads of the unseen mail (UIDs oldest first): the first EMAIL_MAX_FETCH_BATCH; `more` asks for another search. */
export function fetchBatch(uids: readonly number[]): { batch: number[]; more: boolean } {
  return { batch: uids.slice(0, EMAIL_MAX_FETCH_BATCH), more: uids.length > EMAIL_MAX_FETCH_BATCH };
}
