/**
 * Equality of two strings that takes as long whatever differs (every character is compared; only a length
 * difference answers early, so compare digests or fixed-length secrets): what node:crypto's timingSafeEqual does,
 * without loading node:crypto or building Buffers on every request.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
