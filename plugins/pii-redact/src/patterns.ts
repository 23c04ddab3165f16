// What pii-redact recognises. Plain functions over strings: no host import, so they are easy to read and to test.

export const MASKS = { email: "[email]", phone: "[phone]", card: "[card]" } as const;
export type MaskKind = keyof typeof MASKS;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
// international (+..) or grouped national numbers: at least 9 digits in all
const PHONE = /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){2,4}(?!\w)/g;
const CARD = /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g;

/** 9 to 15 digits: E.164's longest number is 15 (a longer run is an id or a card, not a phone). */
function isPhone(match: string): boolean {
  const digits = match.replace(/\D/g, "").length;
  return digits >= 9 && digits <= 15;
}

/** The Luhn check every payment card number passes (and most random digit runs do not). */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function maskText(text: string, kinds: readonly string[]): { text: string; counts: Record<MaskKind, number> } {
  const counts: Record<MaskKind, number> = { email: 0, phone: 0, card: 0 };
  let out = text;
  if (kinds.includes("card")) {
    out = out.replace(CARD, (match) => {
      const digits = match.replace(/\D/g, "");
      if (!luhn(digits)) return match;
      counts.card++;
      return MASKS.card;
    });
  }
  if (kinds.includes("email")) out = out.replace(EMAIL, () => (counts.email++, MASKS.email));
  if (kinds.includes("phone")) {
    out = out.replace(PHONE, (match) => (isPhone(match) ? (counts.phone++, MASKS.phone) : match));
  }
  return { text: out, counts };
}

const SECRETS: [name: string, pattern: RegExp][] = [
  ["a private key", /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/],
  ["an AWS access key", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ["an API key", /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b/],
  ["a GitHub token", /\bgh[pousr]_[A-Za-z0-9]{36,}\b/],
  ["a password", /\bpassword\s*[:=]\s*\S{6,}/i],
];

/** What kind of secret the text carries, or null. */
export function findSecret(text: string): string | null {
  return SECRETS.find(([, pattern]) => pattern.test(text))?.[0] ?? null;
}
